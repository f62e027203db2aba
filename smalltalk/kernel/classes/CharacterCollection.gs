! CharacterCollection: its comment, then its instance and class methods.

doit
CharacterCollection comment: 'The abstract superclass of the strings and symbols: comparison, searching
(indexOf:, includesString:, findString:startingAt:), conversion (asSymbol,
asNumber, asUppercase, encodeAsUTF8), splitting and joining, and printing with
quotes.'.
true
%

category: 'Converting'
method: CharacterCollection
substrings: separators
	<primitive: 228>
	^ self _primitiveFailed: #substrings:
%

category: 'Converting'
method: CharacterCollection
keywords
	<primitive: 239>
	^ self _primitiveFailed: #keywords
%

category: 'Searching'
method: CharacterCollection
findString: aString startingAt: anIndex
	^ self _findString: aString startingAt: anIndex ignoreCase: false
%

category: 'Testing'
method: CharacterCollection
isEmpty
	^ self size = 0
%

category: 'Testing'
method: CharacterCollection
notEmpty
	^ self size > 0
%

category: 'Converting'
method: CharacterCollection
asCharacter
	^ self size = 1 ifTrue: [self at: 1] ifFalse: [nil]
%

category: 'Primitives'
method: CharacterCollection
, aString
	<primitive: 200>
	^ ArgumentTypeError new signal: 'a CharacterCollection can only be concatenated with a CharacterCollection'
%

category: 'Primitives'
method: CharacterCollection
= aString
	<primitive: 201>
	^ false
%

category: 'Primitives'
method: CharacterCollection
< aString
	<primitive: 202>
	^ ArgumentTypeError new signal: 'a CharacterCollection can only be compared with a CharacterCollection'
%

category: 'Primitives'
method: CharacterCollection
> aString
	<primitive: 203>
	^ ArgumentTypeError new signal: 'a CharacterCollection can only be compared with a CharacterCollection'
%

category: 'Primitives'
method: CharacterCollection
<= aString
	<primitive: 204>
	^ ArgumentTypeError new signal: 'a CharacterCollection can only be compared with a CharacterCollection'
%

category: 'Primitives'
method: CharacterCollection
>= aString
	<primitive: 205>
	^ ArgumentTypeError new signal: 'a CharacterCollection can only be compared with a CharacterCollection'
%

category: 'Primitives'
method: CharacterCollection
hash
	<primitive: 206>
	^ self size
%

category: 'Primitives'
method: CharacterCollection
asSymbol
	<primitive: 207>
	^ ArgumentTypeError new signal: 'asSymbol failed'
%

category: 'Primitives'
method: CharacterCollection
asString
	<primitive: 208>
	^ ArgumentTypeError new signal: 'asString failed'
%

category: 'Primitives'
method: CharacterCollection
copyFrom: start to: stop
	<primitive: 209>
	^ OutOfRange new signal: 'copyFrom: ', start printString, ' to: ', stop printString, ' is out of range (size ', self size printString, ')'
%

category: 'Primitives'
method: CharacterCollection
indexOf: aCharacter
	<primitive: 210>
	^ 0
%

category: 'Primitives'
method: CharacterCollection
includesSubstring: aString
	<primitive: 211>
	^ ArgumentTypeError new signal: 'includesSubstring: needs a CharacterCollection'
%

category: 'Primitives'
method: CharacterCollection
asUppercase
	<primitive: 212>
	^ ArgumentTypeError new signal: 'asUppercase failed'
%

category: 'Primitives'
method: CharacterCollection
asLowercase
	<primitive: 213>
	^ ArgumentTypeError new signal: 'asLowercase failed'
%

category: 'Primitives'
method: CharacterCollection
printString
	<primitive: 214>
	^ self _basicPrintString
%

category: 'Primitives'
method: CharacterCollection
encodeAsUTF8
	<primitive: 215>
	^ ArgumentTypeError new signal: 'encodeAsUTF8 failed'
%

category: 'Primitives'
method: CharacterCollection
decodeFromUTF8
	<primitive: 216>
	^ ArgumentError new signal: 'the receiver is not valid UTF-8'
%

category: 'Primitives'
method: CharacterCollection
evaluate
	<primitive: 217>
	^ ArgumentTypeError new signal: 'evaluate failed'
%

category: 'Primitives'
method: CharacterCollection
displayString
	<primitive: 218>
	^ self asString
%

category: 'Primitives'
method: CharacterCollection
asNumber
	<primitive: 219>
	^ nil
%

category: 'Primitives'
method: CharacterCollection
asInteger
	<primitive: 220>
	^ nil
%

category: 'Primitives'
method: CharacterCollection
_findString: aString startingAt: anIndex ignoreCase: aBoolean
	<primitive: 221>
	^ ArgumentTypeError new signal: '_findString:startingAt:ignoreCase: needs a CharacterCollection, an index and a Boolean'
%

category: 'Primitives'
method: CharacterCollection
replaceFrom: start to: stop with: aCollection startingAt: repStart
	<primitive: 222>
	^ super replaceFrom: start to: stop with: aCollection startingAt: repStart
%

category: 'Primitives'
method: CharacterCollection
size
	<primitive: 224>
	^ self basicSize
%

category: 'Primitives'
method: CharacterCollection
reverse
	<primitive: 225>
	^ super reverse
%

category: 'Primitives'
method: CharacterCollection
trimSeparators
	<primitive: 226>
	^ ArgumentTypeError new signal: 'trimSeparators failed'
%

category: 'Primitives'
method: CharacterCollection
subStrings
	<primitive: 227>
	^ ArgumentTypeError new signal: 'subStrings failed'
%

category: 'Primitives'
method: CharacterCollection
substrings
	<primitive: 227>
	^ ArgumentTypeError new signal: 'substrings failed'
%

category: 'Primitives'
method: CharacterCollection
subStrings: separators
	<primitive: 228>
	^ ArgumentTypeError new signal: 'subStrings: needs a String or Character of separators'
%

category: 'Primitives'
method: CharacterCollection
includesString: aString
	<primitive: 229>
	^ ArgumentTypeError new signal: 'includesString: needs a CharacterCollection'
%

category: 'Primitives'
method: CharacterCollection
asByteArray
	<primitive: 230>
	^ ArgumentTypeError new signal: 'asByteArray failed'
%

category: 'Primitives'
method: CharacterCollection
occurrencesOf: aCharacter
	<primitive: 231>
	^ 0
%

category: 'Primitives'
method: CharacterCollection
isSymbol
	<primitive: 232>
	^ false
%

category: 'Primitives'
method: CharacterCollection
asUnicodeString
	<primitive: 233>
	^ ArgumentTypeError new signal: 'asUnicodeString failed'
%

category: 'Primitives'
method: CharacterCollection
sameAs: aString
	<primitive: 235>
	^ false
%

category: 'Primitives'
method: CharacterCollection
startsWith: aString
	<primitive: 236>
	^ ArgumentTypeError new signal: 'startsWith: needs a CharacterCollection'
%

category: 'Primitives'
method: CharacterCollection
endsWith: aString
	<primitive: 237>
	^ ArgumentTypeError new signal: 'endsWith: needs a CharacterCollection'
%

category: 'Primitives'
method: CharacterCollection
matchPattern: anArray
	<primitive: 238>
	^ ArgumentTypeError new signal: 'matchPattern: needs an Array of Strings and Characters'
%

category: 'Testing'
method: CharacterCollection
isString
	^ true
%

category: 'Printing'
method: CharacterCollection
printOn: aStream
	aStream nextPutAll: self printString
%

category: 'Printing'
method: CharacterCollection
displayOn: aStream
	aStream nextPutAll: self displayString
%

category: 'Accessing'
method: CharacterCollection
lines
	"An Array of the lines of the receiver; a line ends at LF, CR LF or CR."
	| result stream |
	result := OrderedCollection new.
	stream := ReadStream on: self.
	[stream atEnd] whileFalse: [result add: stream nextLine].
	^ result asArray
%

category: 'Accessing'
method: CharacterCollection
join: aCollection
	"The elements of aCollection (strings, or anything with a displayString) separated by the receiver."
	| stream |
	stream := WriteStream on: String new.
	aCollection
		do: [:each | stream nextPutAll: (each isString ifTrue: [each] ifFalse: [each displayString])]
		separatedBy: [stream nextPutAll: self].
	^ stream contents
%

category: 'Accessing'
method: CharacterCollection
indexOfSubCollection: aString startingAt: start ifAbsent: aBlock
	| index |
	index := self _findString: aString startingAt: start ignoreCase: false.
	^ index = 0 ifTrue: [aBlock value] ifFalse: [index]
%

category: 'Accessing'
method: CharacterCollection
occurrencesOfString: aString
	| count index |
	aString isEmpty ifTrue: [^ 0].
	count := 0.
	index := 1.
	[index := self _findString: aString startingAt: index ignoreCase: false.
	 index > 0] whileTrue: [count := count + 1. index := index + aString size].
	^ count
%

category: 'Converting'
method: CharacterCollection
asLowercaseSymbol
	^ self asLowercase asSymbol
%

category: 'Converting'
method: CharacterCollection
trimBoth
	^ self trimSeparators
%

category: 'Converting'
method: CharacterCollection
capitalized
	self isEmpty ifTrue: [^ self copy].
	^ (self copyFrom: 1 to: 1) asUppercase , (self copyFrom: 2 to: self size)
%

category: 'Converting'
method: CharacterCollection
withCRs
	"A copy with each backslash turned into a line feed."
	^ self collect: [:each | each == $\ ifTrue: [Character lf] ifFalse: [each]]
%

category: 'Copying'
method: CharacterCollection
copyReplaceAll: oldString with: newString
	"A copy with every occurrence of oldString replaced by newString."
	| stream start index |
	oldString isEmpty ifTrue: [^ self copy].
	stream := WriteStream on: (self species new: 0).
	start := 1.
	[index := self _findString: oldString startingAt: start ignoreCase: false.
	 index > 0] whileTrue: [
		stream nextPutAll: (self copyFrom: start to: index - 1); nextPutAll: newString.
		start := index + oldString size].
	stream nextPutAll: (self copyFrom: start to: self size).
	^ stream contents
%

category: 'Private'
method: CharacterCollection
species
	^ String
%

category: 'Formatting'
method: CharacterCollection
bindWith: firstArg
	^ self _bindArguments: (Array with: firstArg)
%

category: 'Formatting'
method: CharacterCollection
bindWith: firstArg with: secondArg
	^ self _bindArguments: (Array with: firstArg with: secondArg)
%

category: 'Formatting'
method: CharacterCollection
bindWith: firstArg with: secondArg with: thirdArg
	^ self _bindArguments: (Array with: firstArg with: secondArg with: thirdArg)
%

category: 'Formatting'
method: CharacterCollection
bindWith: firstArg with: secondArg with: thirdArg with: fourthArg
	^ self _bindArguments: (Array with: firstArg with: secondArg with: thirdArg with: fourthArg)
%

category: 'Private'
method: CharacterCollection
_bindArguments: anArray
	"A copy with %1 … %9 replaced by the asString of the matching argument; other text is kept."
	| out i c index |
	out := WriteStream on: String new.
	i := 1.
	[i <= self size] whileTrue: [
		c := self at: i.
		(c = $% and: [i < self size and: [(self at: i + 1) isDigit]])
			ifTrue: [
				index := (self at: i + 1) digitValue.
				(index between: 1 and: anArray size)
					ifTrue: [out nextPutAll: (anArray at: index) asString]
					ifFalse: [out nextPut: c; nextPut: (self at: i + 1)].
				i := i + 2]
			ifFalse: [
				out nextPut: c.
				i := i + 1]].
	^ out contents
%

category: 'JSON'
method: CharacterCollection
printJsonOn: aStream
	"A JSON string; control characters and characters beyond ASCII are \u escapes (pairs above U+FFFF)."
	aStream nextPut: $".
	self do: [:c | | code |
		code := c asInteger.
		c = $" ifTrue: [aStream nextPutAll: '\"'] ifFalse: [
		c = $\ ifTrue: [aStream nextPutAll: '\\'] ifFalse: [
		code = 10 ifTrue: [aStream nextPutAll: '\n'] ifFalse: [
		code = 13 ifTrue: [aStream nextPutAll: '\r'] ifFalse: [
		code = 9 ifTrue: [aStream nextPutAll: '\t'] ifFalse: [
		(code < 32 or: [code > 126])
			ifTrue: [self _printJsonEscape: code on: aStream]
			ifFalse: [aStream nextPut: c]]]]]]].
	aStream nextPut: $"
%

category: 'JSON'
method: CharacterCollection
_printJsonEscape: code on: aStream
	code > 16rFFFF ifTrue: [
		self _printJsonEscape: (code - 16r10000) // 1024 + 16rD800 on: aStream.
		^ self _printJsonEscape: (code - 16r10000) \\ 1024 + 16rDC00 on: aStream].
	aStream nextPutAll: '\u'.
	#(4096 256 16 1) do: [:unit |
		aStream nextPut: ('0123456789abcdef' at: code // unit \\ 16 + 1)]
%

category: 'Instance Creation'
classmethod: CharacterCollection
new: aSize withAll: aCharacter
	<primitive: 234>
	^ super new: aSize withAll: aCharacter
%
