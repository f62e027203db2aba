! Object, Boolean, UndefinedObject, Character, Magnitude, Number and Association protocol written in Smalltalk: printing (printOn:/printString/displayString), copying, testing, comparing.

category: 'Printing'
method: Object
_basicPrintString
	"The VM's own text for the receiver; the last resort of printing."
	<primitive: 14>
	^ 'an object'
%

category: 'Printing'
method: Object
printOn: aStream
	"Appends the class name with its article glued on, as GemStone does: anObject, aFoo."
	| className |
	className := self class name.
	aStream nextPutAll: ((className size > 0 and: [(className at: 1) isVowel])
		ifTrue: ['an']
		ifFalse: ['a']).
	aStream nextPutAll: className
%

category: 'Printing'
method: Object
printString
	^ self _printStringFromPrintOn
%

category: 'Printing'
method: Object
_printStringFromPrintOn
	"The text printOn: writes: printString for every class that prints through printOn:."
	| stream |
	stream := WriteStream on: String new.
	self printOn: stream.
	^ stream contents
%

category: 'Printing'
method: Object
displayString
	"A String for showing to a person; the printString unless a class knows better."
	^ self printString
%

category: 'Printing'
method: Object
displayOn: aStream
	aStream nextPutAll: self displayString
%

category: 'Printing'
method: Object
displayNl
	Transcript show: self displayString; cr
%

category: 'Printing'
method: Object
printNl
	Transcript show: self printString; cr
%

category: 'Printing'
method: Object
asString
	^ self printString
%

category: 'Printing'
method: Object
describeClassName
	"Answers the receiver's class name with its article, as printOn: shows it."
	| className |
	className := self class name.
	^ ((className size > 0 and: [(className at: 1) isVowel]) ifTrue: ['an'] ifFalse: ['a']) , className
%

category: 'Copying'
method: Object
copy
	^ self shallowCopy postCopy
%

category: 'Copying'
method: Object
postCopy
	^ self
%

category: 'Copying'
method: Object
deepCopy
	"A copy whose instance variables are copies of the receiver's."
	| copy |
	copy := self shallowCopy.
	1 to: copy class instSize + copy basicSize do: [:i |
		copy instVarAt: i put: (copy instVarAt: i) copy].
	^ copy
%

category: 'Accessing'
method: Object
yourself
	^ self
%

category: 'Associating'
method: Object
-> anObject
	^ Association key: self value: anObject
%

category: 'Testing'
method: Object
isNil
	^ false
%

category: 'Testing'
method: Object
notNil
	^ true
%

category: 'Testing'
method: Object
isBehavior
	^ false
%

category: 'Testing'
method: Object
isString
	^ false
%

category: 'Testing'
method: Object
isSymbol
	^ false
%

category: 'Testing'
method: Object
isNumber
	^ false
%

category: 'Testing'
method: Object
isInteger
	^ false
%

category: 'Testing'
method: Object
isCharacter
	^ false
%

category: 'Testing'
method: Object
isCollection
	^ false
%

category: 'Testing'
method: Object
isClass
	^ false
%

category: 'Testing'
method: Object
isMeta
	^ false
%

category: 'Testing'
method: Object
isFloat
	^ false
%

category: 'Testing'
method: Object
isBoolean
	^ false
%

category: 'Testing'
method: Object
isArray
	^ false
%

category: 'Testing'
method: Object
isDictionary
	^ false
%

category: 'Testing'
method: Object
isException
	^ false
%

category: 'Nil testing'
method: Object
ifNil: aBlock
	^ self
%

category: 'Nil testing'
method: Object
ifNotNil: aBlock
	^ aBlock numArgs = 0 ifTrue: [aBlock value] ifFalse: [aBlock value: self]
%

category: 'Nil testing'
method: Object
ifNil: nilBlock ifNotNil: notNilBlock
	^ notNilBlock numArgs = 0 ifTrue: [notNilBlock value] ifFalse: [notNilBlock value: self]
%

category: 'Nil testing'
method: Object
ifNotNil: notNilBlock ifNil: nilBlock
	^ notNilBlock numArgs = 0 ifTrue: [notNilBlock value] ifFalse: [notNilBlock value: self]
%

category: 'Comparing'
method: Object
~= anObject
	^ (self = anObject) not
%

category: 'Errors'
method: Object
error: aString
	"Signals an Error whose messageText is aString."
	^ Error new signal: aString
%

category: 'Errors'
method: Object
halt
	^ Halt new signal
%

category: 'Errors'
method: Object
halt: aString
	^ Halt new signal: aString
%

category: 'Errors'
method: Object
assert: aBoolean
	aBoolean == true ifFalse: [^ Error new signal: 'Assertion failed'].
	^ self
%

category: 'Errors'
method: Object
subclassResponsibility
	^ Error new signal: 'This method is a subclass responsibility'
%

category: 'Errors'
method: Object
shouldNotImplement
	^ Error new signal: 'This message should not be sent to ', self describeClassName
%

category: 'Errors'
method: Object
_errorIndexOutOfRange: anIndex
	^ OutOfRange new signal: 'Index ', anIndex printString, ' is out of range (1 to ', self size printString, ')'
%

category: 'Errors'
method: Object
_errorNotFound: anObject
	^ LookupError new signal: anObject printString, ' not found'
%

category: 'Errors'
method: Object
_errorKeyNotFound: aKey
	^ LookupError new signal: 'Key not found: ', aKey printString
%

category: 'Errors'
method: Object
_errorEmptyCollection
	^ Error new signal: 'The collection is empty'
%

category: 'Printing'
method: Boolean
printOn: aStream
	aStream nextPutAll: self printString
%

category: 'Printing'
method: True
printString
	^ 'true'
%

category: 'Printing'
method: False
printString
	^ 'false'
%

category: 'Testing'
method: Boolean
isBoolean
	^ true
%

category: 'Logical operations'
method: True
& aBoolean
	^ aBoolean
%

category: 'Logical operations'
method: False
& aBoolean
	^ false
%

category: 'Logical operations'
method: True
| aBoolean
	^ true
%

category: 'Logical operations'
method: False
| aBoolean
	^ aBoolean
%

category: 'Logical operations'
method: True
not
	^ false
%

category: 'Logical operations'
method: False
not
	^ true
%

category: 'Logical operations'
method: True
xor: aBoolean
	^ aBoolean not
%

category: 'Logical operations'
method: False
xor: aBoolean
	^ aBoolean
%

category: 'Logical operations'
method: True
and: aBlock
	^ aBlock value
%

category: 'Logical operations'
method: False
and: aBlock
	^ false
%

category: 'Logical operations'
method: True
or: aBlock
	^ true
%

category: 'Logical operations'
method: False
or: aBlock
	^ aBlock value
%

category: 'Flow of control'
method: True
ifTrue: trueBlock
	^ trueBlock value
%

category: 'Flow of control'
method: False
ifTrue: trueBlock
	^ nil
%

category: 'Flow of control'
method: True
ifFalse: falseBlock
	^ nil
%

category: 'Flow of control'
method: False
ifFalse: falseBlock
	^ falseBlock value
%

category: 'Flow of control'
method: True
ifTrue: trueBlock ifFalse: falseBlock
	^ trueBlock value
%

category: 'Flow of control'
method: False
ifTrue: trueBlock ifFalse: falseBlock
	^ falseBlock value
%

category: 'Flow of control'
method: True
ifFalse: falseBlock ifTrue: trueBlock
	^ trueBlock value
%

category: 'Flow of control'
method: False
ifFalse: falseBlock ifTrue: trueBlock
	^ falseBlock value
%

category: 'Copying'
method: Boolean
shallowCopy
	^ self
%

category: 'Printing'
method: UndefinedObject
printOn: aStream
	aStream nextPutAll: 'nil'
%

category: 'Printing'
method: UndefinedObject
printString
	^ 'nil'
%

category: 'Testing'
method: UndefinedObject
isNil
	^ true
%

category: 'Testing'
method: UndefinedObject
notNil
	^ false
%

category: 'Nil testing'
method: UndefinedObject
ifNil: aBlock
	^ aBlock value
%

category: 'Nil testing'
method: UndefinedObject
ifNotNil: aBlock
	^ nil
%

category: 'Nil testing'
method: UndefinedObject
ifNil: nilBlock ifNotNil: notNilBlock
	^ nilBlock value
%

category: 'Nil testing'
method: UndefinedObject
ifNotNil: notNilBlock ifNil: nilBlock
	^ nilBlock value
%

category: 'Copying'
method: UndefinedObject
shallowCopy
	^ self
%

category: 'Comparing'
method: Magnitude
between: min and: max
	^ self >= min and: [self <= max]
%

category: 'Comparing'
method: Magnitude
max: aMagnitude
	^ self > aMagnitude ifTrue: [self] ifFalse: [aMagnitude]
%

category: 'Comparing'
method: Magnitude
min: aMagnitude
	^ self < aMagnitude ifTrue: [self] ifFalse: [aMagnitude]
%

category: 'Comparing'
method: Magnitude
> aMagnitude
	^ aMagnitude < self
%

category: 'Comparing'
method: Magnitude
<= aMagnitude
	^ (aMagnitude < self) not
%

category: 'Comparing'
method: Magnitude
>= aMagnitude
	^ (self < aMagnitude) not
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

category: 'Instance creation'
classmethod: Character
cr
	^ self value: 13
%

category: 'Instance creation'
classmethod: Character
lf
	^ self value: 10
%

category: 'Instance creation'
classmethod: Character
tab
	^ self value: 9
%

category: 'Instance creation'
classmethod: Character
space
	^ self value: 32
%

category: 'Instance creation'
classmethod: Character
nul
	^ self value: 0
%

category: 'Instance creation'
classmethod: Character
newline
	^ self value: 10
%

category: 'Instance creation'
classmethod: Character
digitValue: anInteger
	^ '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ' at: anInteger + 1
%

category: 'Printing'
method: Number
printOn: aStream
	aStream nextPutAll: self printString
%

category: 'Printing'
method: Number
displayString
	^ self printString
%

category: 'Printing'
method: Number
asString
	^ self printString
%

category: 'Printing'
method: Integer
printPaddedWith: aCharacter to: aWidth
	| digits |
	digits := self abs printString.
	[digits size < (aWidth - (self < 0 ifTrue: [1] ifFalse: [0]))]
		whileTrue: [digits := (String with: aCharacter) , digits].
	^ self < 0 ifTrue: ['-' , digits] ifFalse: [digits]
%

category: 'Testing'
method: Number
isNumber
	^ true
%

category: 'Testing'
method: Integer
isInteger
	^ true
%

category: 'Testing'
method: BinaryFloat
isFloat
	^ true
%

category: 'Testing'
method: Number
odd
	^ self even not
%

category: 'Testing'
method: Number
positive
	^ self >= 0
%

category: 'Testing'
method: Number
strictlyPositive
	^ self > 0
%

category: 'Copying'
method: Number
shallowCopy
	^ self
%

category: 'Intervals'
method: Number
to: stop
	^ Interval from: self to: stop by: 1
%

category: 'Intervals'
method: Number
to: stop by: step
	^ Interval from: self to: stop by: step
%

category: 'Intervals'
method: Number
to: stop do: aBlock
	| i |
	i := self.
	[i <= stop] whileTrue: [aBlock value: i. i := i + 1]
%

category: 'Intervals'
method: Number
to: stop by: step do: aBlock
	| i |
	step = 0 ifTrue: [^ ArgumentError new signal: 'step must not be zero'].
	i := self.
	step > 0
		ifTrue: [[i <= stop] whileTrue: [aBlock value: i. i := i + step]]
		ifFalse: [[i >= stop] whileTrue: [aBlock value: i. i := i + step]]
%

category: 'Flow of control'
method: Integer
timesRepeat: aBlock
	| i |
	i := 1.
	[i <= self] whileTrue: [aBlock value. i := i + 1]
%

category: 'Arithmetic'
method: Number
reciprocal
	^ 1 / self
%

category: 'Arithmetic'
method: Integer
isPrime
	| i |
	self < 2 ifTrue: [^ false].
	i := 2.
	[i * i <= self] whileTrue: [
		self \\ i = 0 ifTrue: [^ false].
		i := i + 1].
	^ true
%

category: 'Accessing'
classmethod: Association
key: aKey value: aValue
	^ self new key: aKey value: aValue
%

category: 'Accessing'
method: Association
key
	^ key
%

category: 'Accessing'
method: Association
value
	^ value
%

category: 'Accessing'
method: Association
key: aKey
	key := aKey
%

category: 'Accessing'
method: Association
value: aValue
	value := aValue
%

category: 'Accessing'
method: Association
key: aKey value: aValue
	key := aKey.
	value := aValue
%

category: 'Printing'
method: Association
printOn: aStream
	aStream print: key; nextPutAll: '->'; print: value
%

category: 'Comparing'
method: Association
= anObject
	^ (anObject isKindOf: Association)
		and: [key = anObject key and: [value = anObject value]]
%

category: 'Comparing'
method: Association
hash
	^ key hash
%

category: 'Comparing'
method: Association
< anAssociation
	^ key < anAssociation key
%

category: 'Printing'
method: Array
printString
	^ self _printStringFromPrintOn
%

category: 'Printing'
method: Behavior
printString
	^ self _printStringFromPrintOn
%

category: 'Printing'
method: AbstractException
printString
	^ self _printStringFromPrintOn
%

category: 'Printing'
method: Association
printString
	^ self _printStringFromPrintOn
%

category: 'Printing'
method: GsNMethod
printString
	^ self _printStringFromPrintOn
%

category: 'Printing'
method: SymbolDictionary
printString
	^ self _printStringFromPrintOn
%
