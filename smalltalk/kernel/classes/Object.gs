! Object: its comment, then its instance and class methods.

doit
Object comment: 'The root of the class hierarchy: identity and equality, class membership,
copying, printing (printString, printOn:, displayString), perform:, error
signalling and the protocol every object answers.'.
true
%

category: 'Comparing'
method: Object
== anObject
	<primitive: 1>
	^ false
%

category: 'Comparing'
method: Object
~~ anObject
	<primitive: 15>
	^ true
%

category: 'Comparing'
method: Object
= anObject
	<primitive: 16>
	^ false
%

category: 'Comparing'
method: Object
hash
	<primitive: 17>
	^ 0
%

category: 'Comparing'
method: Object
identityHash
	<primitive: 3>
	^ 0
%

category: 'Accessing'
method: Object
class
	<primitive: 2>
	^ nil
%

category: 'Accessing'
method: Object
basicSize
	<primitive: 4>
	^ 0
%

category: 'Accessing'
method: Object
size
	<primitive: 21>
	^ 0
%

category: 'Accessing'
method: Object
basicAt: index
	<primitive: 5>
	^ self _indexError: index
%

category: 'Accessing'
method: Object
basicAt: index put: aValue
	<primitive: 6>
	^ self _storeError: index value: aValue
%

category: 'Accessing'
method: Object
at: index
	<primitive: 22>
	^ self _indexError: index
%

category: 'Accessing'
method: Object
at: index put: aValue
	<primitive: 23>
	^ self _storeError: index value: aValue
%

category: 'Accessing'
method: Object
instVarAt: index
	<primitive: 7>
	^ self _indexError: index
%

category: 'Accessing'
method: Object
instVarAt: index put: aValue
	<primitive: 8>
	^ self _storeError: index value: aValue
%

category: 'Private'
method: Object
_indexError: anIndex
	(anIndex isKindOf: SmallInteger) ifFalse: [^ ArgumentTypeError new signal: 'index must be a SmallInteger, not ', anIndex _basicPrintString].
	^ OutOfRange new signal: 'index ', anIndex _basicPrintString, ' is out of bounds for ', self _basicPrintString
%

category: 'Private'
method: Object
_storeError: anIndex value: aValue
	self isInvariant ifTrue: [^ ImproperOperation new signal: 'attempt to modify an invariant object'].
	(anIndex isKindOf: SmallInteger) ifFalse: [^ ArgumentTypeError new signal: 'index must be a SmallInteger, not ', anIndex _basicPrintString].
	(anIndex between: 1 and: self basicSize) ifTrue: [^ ArgumentTypeError new signal: 'cannot store ', aValue _basicPrintString, ' into ', self class name].
	^ OutOfRange new signal: 'index ', anIndex _basicPrintString, ' is out of bounds for ', self _basicPrintString
%

category: 'Private'
method: Object
_primitiveFailed: aSelector
	^ ArgumentTypeError new signal: 'primitive for #', aSelector, ' failed for ', self _basicPrintString
%

category: 'Copying'
method: Object
shallowCopy
	<primitive: 9>
	^ self
%

category: 'Message Handling'
method: Object
perform: aSelector
	<primitive: 10>
	^ self _performFailed: aSelector args: #()
%

category: 'Message Handling'
method: Object
perform: aSelector with: firstArg
	<primitive: 10>
	^ self _performFailed: aSelector args: { firstArg }
%

category: 'Message Handling'
method: Object
perform: aSelector with: firstArg with: secondArg
	<primitive: 10>
	^ self _performFailed: aSelector args: { firstArg. secondArg }
%

category: 'Message Handling'
method: Object
perform: aSelector with: firstArg with: secondArg with: thirdArg
	<primitive: 10>
	^ self _performFailed: aSelector args: { firstArg. secondArg. thirdArg }
%

category: 'Message Handling'
method: Object
perform: aSelector with: firstArg with: secondArg with: thirdArg with: fourthArg
	<primitive: 10>
	^ self _performFailed: aSelector args: { firstArg. secondArg. thirdArg. fourthArg }
%

category: 'Message Handling'
method: Object
perform: aSelector withArguments: anArray
	<primitive: 11>
	^ self _performFailed: aSelector args: anArray
%

category: 'Private'
method: Object
_performFailed: aSelector args: args
	(aSelector isKindOf: Symbol) ifFalse: [^ ArgumentTypeError new signal: 'perform: needs a Symbol'].
	^ ArgumentError new signal: 'wrong number of arguments for #', aSelector
%

category: 'Testing'
method: Object
isKindOf: aClass
	<primitive: 12>
	^ false
%

category: 'Testing'
method: Object
isMemberOf: aClass
	<primitive: 19>
	^ false
%

category: 'Testing'
method: Object
respondsTo: aSelector
	<primitive: 13>
	^ false
%

category: 'Testing'
method: Object
isInvariant
	<primitive: 26>
	^ false
%

category: 'Accessing'
method: Object
immediateInvariant
	<primitive: 27>
	^ self
%

category: 'Accessing'
method: Object
become: anObject
	<primitive: 20>
	^ self _primitiveFailed: #become:
%

category: 'Printing'
method: Object
_basicDisplayString
	<primitive: 18>
	^ self printString
%

category: 'Testing'
method: Object
isExceptionClass
	^ false
%

category: 'Accessing'
method: Object
value
	^ self
%

category: 'Testing'
method: Object
isNil: ignored
	^ false
%

category: 'Error Handling'
method: Object
doesNotUnderstand: aMessage
	<primitive: 28>
	^ nil
%

category: 'Error Handling'
method: Object
_signalError: aNumber args: anArray
	<primitive: 24>
	^ Error new signal: 'error ', aNumber _basicPrintString
%

category: 'Private'
method: Object
_sleep: milliseconds
	<primitive: 341>
	^ ArgumentTypeError new signal: 'a Delay needs a non-negative SmallInteger of milliseconds'
%

category: 'Accessing'
method: Object
_basicSize: anInteger
	<primitive: 29>
	^ self _primitiveFailed: #_basicSize:
%

category: 'Halting'
method: Object
_halt
	<primitive: 340>
	^ self
%

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

category: 'Nil Testing'
method: Object
ifNil: aBlock
	^ self
%

category: 'Nil Testing'
method: Object
ifNotNil: aBlock
	^ aBlock numArgs = 0 ifTrue: [aBlock value] ifFalse: [aBlock value: self]
%

category: 'Nil Testing'
method: Object
ifNil: nilBlock ifNotNil: notNilBlock
	^ notNilBlock numArgs = 0 ifTrue: [notNilBlock value] ifFalse: [notNilBlock value: self]
%

category: 'Nil Testing'
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
	"Signals a UserDefinedError whose messageText is aString, as GemStone does."
	^ UserDefinedError new signal: aString
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

category: 'JSON'
method: Object
asJson
	"The receiver as JSON text."
	| stream |
	stream := WriteStream on: String new.
	self printJsonOn: stream.
	^ stream contents
%

category: 'JSON'
method: Object
printJsonOn: aStream
	"Objects without a JSON form are written as their printString."
	self printString printJsonOn: aStream
%
