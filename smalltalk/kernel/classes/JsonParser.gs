! JsonParser: its comment, then its instance and class methods.

doit
JsonParser comment: 'Reads JSON text into Smalltalk objects: a Dictionary, an Array, a String, an
Integer or Float, true, false or nil. Malformed text signals an Error naming
the offset.'.
true
%

category: 'Private'
method: JsonParser
_parse: aString
	| value |
	aString isString ifFalse: [^ self _error: 'JSON text must be a String, not ', aString describeClassName].
	stream := ReadStream on: aString.
	value := self _value.
	self _skipWhite.
	stream atEnd ifFalse: [^ self _error: 'unexpected text after the JSON value'].
	^ value
%

category: 'Private'
method: JsonParser
_error: aString
	^ Error new signal: 'JSON parse error at position ', stream position printString, ': ', aString
%

category: 'Private'
method: JsonParser
_skipWhite
	[stream atEnd not and: [stream peek isSeparator]] whileTrue: [stream next]
%

category: 'Private'
method: JsonParser
_expect: aCharacter
	self _skipWhite.
	stream peek = aCharacter ifFalse: [^ self _error: 'expected ', (String with: aCharacter)].
	stream next
%

category: 'Private'
method: JsonParser
_value
	| c |
	self _skipWhite.
	stream atEnd ifTrue: [^ self _error: 'expected a value, found the end of the text'].
	c := stream peek.
	c = ${ ifTrue: [^ self _object].
	c = $[ ifTrue: [^ self _array].
	c = $" ifTrue: [^ self _string].
	(c = $- or: [c isDigit]) ifTrue: [^ self _number].
	c = $t ifTrue: [^ self _literal: 'true' value: true].
	c = $f ifTrue: [^ self _literal: 'false' value: false].
	c = $n ifTrue: [^ self _literal: 'null' value: nil].
	^ self _error: 'unexpected character ', c printString
%

category: 'Private'
method: JsonParser
_literal: aString value: anObject
	(stream next: aString size) = aString ifFalse: [^ self _error: 'expected ', aString].
	^ anObject
%

category: 'Private'
method: JsonParser
_object
	| result key |
	result := Dictionary new.
	stream next.
	self _skipWhite.
	stream peek = $} ifTrue: [stream next. ^ result].
	[self _skipWhite.
	 stream peek = $" ifFalse: [^ self _error: 'expected a string key'].
	 key := self _string.
	 self _expect: $:.
	 result at: key put: self _value.
	 self _skipWhite.
	 stream peek = $,] whileTrue: [stream next].
	self _expect: $}.
	^ result
%

category: 'Private'
method: JsonParser
_array
	| result |
	result := OrderedCollection new.
	stream next.
	self _skipWhite.
	stream peek = $] ifTrue: [stream next. ^ result asArray].
	[result add: self _value.
	 self _skipWhite.
	 stream peek = $,] whileTrue: [stream next].
	self _expect: $].
	^ result asArray
%

category: 'Private'
method: JsonParser
_string
	| out c |
	out := WriteStream on: String new.
	stream next.
	[stream atEnd ifTrue: [^ self _error: 'unterminated string'].
	 c := stream next.
	 c = $"] whileFalse: [
		c = $\
			ifTrue: [out nextPut: self _escape]
			ifFalse: [out nextPut: c]].
	^ out contents
%

category: 'Private'
method: JsonParser
_escape
	| c code low |
	stream atEnd ifTrue: [^ self _error: 'unterminated escape'].
	c := stream next.
	c = $n ifTrue: [^ Character lf].
	c = $t ifTrue: [^ Character tab].
	c = $r ifTrue: [^ Character cr].
	c = $b ifTrue: [^ Character value: 8].
	c = $f ifTrue: [^ Character value: 12].
	(c = $" or: [c = $\ or: [c = $/]]) ifTrue: [^ c].
	c = $u ifFalse: [^ self _error: 'unknown escape \', (String with: c)].
	code := self _hex4.
	(code between: 16rD800 and: 16rDBFF) ifTrue: [
		(stream next: 2) = '\u' ifFalse: [^ self _error: 'a high surrogate must be followed by a low one'].
		low := self _hex4.
		(low between: 16rDC00 and: 16rDFFF) ifFalse: [^ self _error: 'a high surrogate must be followed by a low one'].
		code := (code - 16rD800) * 1024 + (low - 16rDC00) + 16r10000].
	^ Character value: code
%

category: 'Private'
method: JsonParser
_hex4
	| value |
	value := 0.
	4 timesRepeat: [| digit |
		stream atEnd ifTrue: [^ self _error: 'expected 4 hex digits'].
		digit := stream next digitValue.
		(digit between: 0 and: 15) ifFalse: [^ self _error: 'expected 4 hex digits'].
		value := value * 16 + digit].
	^ value
%

category: 'Private'
method: JsonParser
_number
	| out number |
	out := WriteStream on: String new.
	[stream atEnd not and: ['+-0123456789.eE' includes: stream peek]]
		whileTrue: [out nextPut: stream next].
	number := out contents asNumber.
	number == nil ifTrue: [^ self _error: 'malformed number ', out contents printString].
	"An exponent makes a JSON number a Float, as a fraction part does."
	^ ((out contents includes: $e) or: [out contents includes: $E])
		ifTrue: [number asFloat]
		ifFalse: [number]
%

category: 'Parsing'
classmethod: JsonParser
parse: aString
	"The value aString holds as JSON text."
	^ self new _parse: aString
%
