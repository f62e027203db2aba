! Character: its comment, then its instance and class methods.

doit
Character comment: 'A Unicode code point (0..16r10FFFF), an immediate object: comparison,
classification (isLetter, isDigit, isSeparator, ...) and case conversion.'.
true
%

category: 'Accessing'
method: Character
value
	<primitive: 160>
	^ self _primitiveFailed: #value
%

category: 'Accessing'
method: Character
asInteger
	<primitive: 160>
	^ self _primitiveFailed: #asInteger
%

category: 'Accessing'
method: Character
codePoint
	<primitive: 160>
	^ self _primitiveFailed: #codePoint
%

category: 'Accessing'
method: Character
asciiValue
	<primitive: 160>
	^ self _primitiveFailed: #asciiValue
%

category: 'Testing'
method: Character
isVowel
	<primitive: 162>
	^ self _primitiveFailed: #isVowel
%

category: 'Testing'
method: Character
isLetter
	<primitive: 163>
	^ self _primitiveFailed: #isLetter
%

category: 'Testing'
method: Character
isDigit
	<primitive: 164>
	^ self _primitiveFailed: #isDigit
%

category: 'Testing'
method: Character
isSeparator
	<primitive: 165>
	^ self _primitiveFailed: #isSeparator
%

category: 'Testing'
method: Character
isUppercase
	<primitive: 168>
	^ self _primitiveFailed: #isUppercase
%

category: 'Testing'
method: Character
isLowercase
	<primitive: 169>
	^ self _primitiveFailed: #isLowercase
%

category: 'Converting'
method: Character
asUppercase
	<primitive: 166>
	^ self _primitiveFailed: #asUppercase
%

category: 'Converting'
method: Character
asLowercase
	<primitive: 167>
	^ self _primitiveFailed: #asLowercase
%

category: 'Printing'
method: Character
printOn: aStream
	aStream nextPut: $$; nextPut: self
%

category: 'Printing'
method: Character
printString
	^ String with: $$ with: self
%

category: 'Printing'
method: Character
displayString
	^ String with: self
%

category: 'Converting'
method: Character
asString
	^ String with: self
%

category: 'Converting'
method: Character
asSymbol
	^ (String with: self) asSymbol
%

category: 'Converting'
method: Character
asCharacter
	^ self
%

category: 'Testing'
method: Character
isCharacter
	^ true
%

category: 'Testing'
method: Character
isAlphaNumeric
	^ self isLetter or: [self isDigit]
%

category: 'Testing'
method: Character
digitValue
	"0-9 for $0-$9, 10-35 for $A-$Z (either case); -1 otherwise."
	| code |
	code := self asInteger.
	(code between: 48 and: 57) ifTrue: [^ code - 48].
	(code between: 65 and: 90) ifTrue: [^ code - 55].
	(code between: 97 and: 122) ifTrue: [^ code - 87].
	^ -1
%

category: 'Comparing'
method: Character
< aCharacter
	^ self asInteger < aCharacter asInteger
%

category: 'Comparing'
method: Character
> aCharacter
	^ self asInteger > aCharacter asInteger
%

category: 'Comparing'
method: Character
<= aCharacter
	^ self asInteger <= aCharacter asInteger
%

category: 'Comparing'
method: Character
>= aCharacter
	^ self asInteger >= aCharacter asInteger
%

category: 'Copying'
method: Character
shallowCopy
	^ self
%

category: 'Instance Creation'
classmethod: Character
value: anInteger
	<primitive: 161>
	^ OutOfRange new signal: 'not a valid code point'
%

category: 'Instance Creation'
classmethod: Character
codePoint: anInteger
	<primitive: 161>
	^ OutOfRange new signal: 'not a valid code point'
%

category: 'Instance Creation'
classmethod: Character
withValue: anInteger
	<primitive: 161>
	^ OutOfRange new signal: 'not a valid code point'
%

category: 'Instance Creation'
classmethod: Character
esc
	^ Character value: 27
%

category: 'Instance Creation'
classmethod: Character
newPage
	^ Character value: 12
%

category: 'Instance Creation'
classmethod: Character
backspace
	^ Character value: 8
%

category: 'Instance Creation'
classmethod: Character
cr
	^ self value: 13
%

category: 'Instance Creation'
classmethod: Character
lf
	^ self value: 10
%

category: 'Instance Creation'
classmethod: Character
tab
	^ self value: 9
%

category: 'Instance Creation'
classmethod: Character
space
	^ self value: 32
%

category: 'Instance Creation'
classmethod: Character
nul
	^ self value: 0
%

category: 'Instance Creation'
classmethod: Character
newline
	^ self value: 10
%

category: 'Instance Creation'
classmethod: Character
digitValue: anInteger
	^ '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ' at: anInteger + 1
%
