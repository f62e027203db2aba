! ByteArray: its comment, then its instance and class methods.

doit
ByteArray comment: 'A fixed-size sequence of bytes (SmallIntegers 0..255) indexed from 1.'.
true
%

category: 'Converting'
method: ByteArray
decodeFromUTF8
	<primitive: 216>
	^ ArgumentError new signal: 'invalid UTF-8'
%

category: 'Converting'
method: ByteArray
asString
	| s |
	s := String new: self size.
	1 to: self size do: [:i | s at: i put: (Character value: (self at: i))].
	^ s
%

category: 'Printing'
method: ByteArray
printOn: aStream
	"aByteArray( 1, 2, 3) — the collection form (no source for GemStone's exact text)."
	aStream nextPutAll: 'aByteArray( '.
	self do: [:each | each printOn: aStream] separatedBy: [aStream nextPutAll: ', '].
	aStream nextPut: $)
%

category: 'Formatting'
method: ByteArray
asHexString
	"Two hex digits per byte, in order, upper case: #[1 255 16] asHexString = '01FF10'."
	| out digits |
	digits := '0123456789ABCDEF'.
	out := WriteStream on: (String new: self size * 2).
	self do: [:each |
		out nextPut: (digits at: each // 16 + 1); nextPut: (digits at: each \\ 16 + 1)].
	^ out contents
%
