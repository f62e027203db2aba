! The engine's part of the kernel: primitive wrappers and the protocol the VM
! itself relies on (see VM.md). Files 1*.gs ... 9*.gs load after this one and
! may override any method here.

! ----------------------------------------------------------------------
! Object
! ----------------------------------------------------------------------

category: 'comparing'
method: Object
== arg1
	<primitive: 1>
	^ false
%

category: 'comparing'
method: Object
~~ arg1
	<primitive: 15>
	^ true
%

category: 'comparing'
method: Object
= arg1
	<primitive: 16>
	^ false
%

category: 'comparing'
method: Object
hash
	<primitive: 17>
	^ 0
%

category: 'comparing'
method: Object
identityHash
	<primitive: 3>
	^ 0
%

category: 'comparing'
method: Object
~= anObject
	^ (self = anObject) == false
%

category: 'accessing'
method: Object
class
	<primitive: 2>
	^ nil
%

category: 'accessing'
method: Object
basicSize
	<primitive: 4>
	^ 0
%

category: 'accessing'
method: Object
size
	<primitive: 21>
	^ 0
%

category: 'accessing'
method: Object
basicAt: arg1
	<primitive: 5>
	^ self _indexError: arg1
%

category: 'accessing'
method: Object
basicAt: arg1 put: arg2
	<primitive: 6>
	^ self _storeError: arg1 value: arg2
%

category: 'accessing'
method: Object
at: arg1
	<primitive: 22>
	^ self _indexError: arg1
%

category: 'accessing'
method: Object
at: arg1 put: arg2
	<primitive: 23>
	^ self _storeError: arg1 value: arg2
%

category: 'accessing'
method: Object
instVarAt: arg1
	<primitive: 7>
	^ self _indexError: arg1
%

category: 'accessing'
method: Object
instVarAt: arg1 put: arg2
	<primitive: 8>
	^ self _storeError: arg1 value: arg2
%

category: 'private'
method: Object
_indexError: anIndex
	(anIndex isKindOf: SmallInteger) ifFalse: [^ ArgumentTypeError new signal: 'index must be a SmallInteger, not ', anIndex _basicPrintString].
	^ OutOfRange new signal: 'index ', anIndex _basicPrintString, ' is out of bounds for ', self _basicPrintString
%

category: 'private'
method: Object
_storeError: anIndex value: aValue
	self isInvariant ifTrue: [^ ImproperOperation new signal: 'attempt to modify an invariant object'].
	(anIndex isKindOf: SmallInteger) ifFalse: [^ ArgumentTypeError new signal: 'index must be a SmallInteger, not ', anIndex _basicPrintString].
	(anIndex between: 1 and: self basicSize) ifTrue: [^ ArgumentTypeError new signal: 'cannot store ', aValue _basicPrintString, ' into ', self class name].
	^ OutOfRange new signal: 'index ', anIndex _basicPrintString, ' is out of bounds for ', self _basicPrintString
%

category: 'private'
method: Object
_primitiveFailed: aSelector
	^ ArgumentTypeError new signal: 'primitive for #', aSelector, ' failed for ', self _basicPrintString
%

category: 'copying'
method: Object
shallowCopy
	<primitive: 9>
	^ self
%

category: 'copying'
method: Object
copy
	^ self shallowCopy postCopy
%

category: 'copying'
method: Object
postCopy
	^ self
%

category: 'message handling'
method: Object
perform: arg1
	<primitive: 10>
	^ self _performFailed: arg1 args: #()
%

category: 'message handling'
method: Object
perform: arg1 with: arg2
	<primitive: 10>
	^ self _performFailed: arg1 args: { arg2 }
%

category: 'message handling'
method: Object
perform: arg1 with: arg2 with: arg3
	<primitive: 10>
	^ self _performFailed: arg1 args: { arg2. arg3 }
%

category: 'message handling'
method: Object
perform: arg1 with: arg2 with: arg3 with: arg4
	<primitive: 10>
	^ self _performFailed: arg1 args: { arg2. arg3. arg4 }
%

category: 'message handling'
method: Object
perform: arg1 with: arg2 with: arg3 with: arg4 with: arg5
	<primitive: 10>
	^ self _performFailed: arg1 args: { arg2. arg3. arg4. arg5 }
%

category: 'message handling'
method: Object
perform: arg1 withArguments: arg2
	<primitive: 11>
	^ self _performFailed: arg1 args: arg2
%

category: 'private'
method: Object
_performFailed: aSelector args: args
	(aSelector isKindOf: Symbol) ifFalse: [^ ArgumentTypeError new signal: 'perform: needs a Symbol'].
	^ ArgumentError new signal: 'wrong number of arguments for #', aSelector
%

category: 'testing'
method: Object
isKindOf: arg1
	<primitive: 12>
	^ false
%

category: 'testing'
method: Object
isMemberOf: arg1
	<primitive: 19>
	^ false
%

category: 'testing'
method: Object
respondsTo: arg1
	<primitive: 13>
	^ false
%

category: 'testing'
method: Object
isInvariant
	<primitive: 26>
	^ false
%

category: 'accessing'
method: Object
immediateInvariant
	<primitive: 27>
	^ self
%

category: 'accessing'
method: Object
become: arg1
	<primitive: 20>
	^ self _primitiveFailed: #become:
%

category: 'printing'
method: Object
printString
	<primitive: 14>
	^ 'an Object'
%

category: 'printing'
method: Object
_basicPrintString
	<primitive: 14>
	^ 'an Object'
%

category: 'printing'
method: Object
displayString
	<primitive: 18>
	^ self printString
%

category: 'printing'
method: Object
_basicDisplayString
	<primitive: 18>
	^ self printString
%

category: 'printing'
method: Object
printOn: aStream
	aStream nextPutAll: self printString
%

category: 'printing'
method: Object
displayOn: aStream
	aStream nextPutAll: self displayString
%

category: 'printing'
method: Object
printNl
	Transcript show: self printString; cr
%

category: 'testing'
method: Object
isNil
	^ false
%

category: 'testing'
method: Object
notNil
	^ true
%

category: 'testing'
method: Object
isString
	^ false
%

category: 'testing'
method: Object
isSymbol
	^ false
%

category: 'testing'
method: Object
isNumber
	^ false
%

category: 'testing'
method: Object
isInteger
	^ false
%

category: 'testing'
method: Object
isFloat
	^ false
%

category: 'testing'
method: Object
isCharacter
	^ false
%

category: 'testing'
method: Object
isArray
	^ false
%

category: 'testing'
method: Object
isBehavior
	^ false
%

category: 'testing'
method: Object
isClass
	^ false
%

category: 'testing'
method: Object
isMeta
	^ false
%

category: 'testing'
method: Object
isBoolean
	^ false
%

category: 'testing'
method: Object
isCollection
	^ false
%

category: 'testing'
method: Object
isExceptionClass
	^ false
%

category: 'accessing'
method: Object
yourself
	^ self
%

category: 'accessing'
method: Object
value
	^ self
%

category: 'testing'
method: Object
ifNil: aBlock
	^ self
%

category: 'testing'
method: Object
ifNotNil: aBlock
	^ aBlock numArgs = 0 ifTrue: [aBlock value] ifFalse: [aBlock value: self]
%

category: 'testing'
method: Object
ifNil: nilBlock ifNotNil: aBlock
	^ aBlock numArgs = 0 ifTrue: [aBlock value] ifFalse: [aBlock value: self]
%

category: 'testing'
method: Object
ifNotNil: aBlock ifNil: nilBlock
	^ aBlock numArgs = 0 ifTrue: [aBlock value] ifFalse: [aBlock value: self]
%

category: 'testing'
method: Object
isNil: ignored
	^ false
%

category: 'associating'
method: Object
-> anObject
	^ Association new key: self value: anObject
%

category: 'error handling'
method: Object
error: aString
	^ Error new signal: aString
%

category: 'error handling'
method: Object
halt
	^ Halt new signal
%

category: 'error handling'
method: Object
halt: aString
	^ Halt new signal: aString
%

category: 'error handling'
method: Object
doesNotUnderstand: aMessage
	<primitive: 28>
	^ nil
%

category: 'error handling'
method: Object
_signalError: aNumber args: anArray
	<primitive: 24>
	^ Error new signal: 'error ', aNumber _basicPrintString
%

category: 'error handling'
method: Object
subclassResponsibility
	^ Error new signal: 'a subclass should have overridden this message'
%

category: 'error handling'
method: Object
shouldNotImplement
	^ Error new signal: 'this message should not be sent to this object'
%

! ----------------------------------------------------------------------
! UndefinedObject, Boolean
! ----------------------------------------------------------------------

category: 'testing'
method: UndefinedObject
isNil
	^ true
%

category: 'testing'
method: UndefinedObject
notNil
	^ false
%

category: 'testing'
method: UndefinedObject
ifNil: aBlock
	^ aBlock value
%

category: 'testing'
method: UndefinedObject
ifNotNil: aBlock
	^ nil
%

category: 'testing'
method: UndefinedObject
ifNil: nilBlock ifNotNil: aBlock
	^ nilBlock value
%

category: 'testing'
method: UndefinedObject
ifNotNil: aBlock ifNil: nilBlock
	^ nilBlock value
%

category: 'printing'
method: UndefinedObject
printString
	^ 'nil'
%

category: 'testing'
method: Boolean
isBoolean
	^ true
%

category: 'printing'
method: True
printString
	^ 'true'
%

category: 'logical operations'
method: True
not
	^ false
%

category: 'logical operations'
method: True
& aBoolean
	^ aBoolean
%

category: 'logical operations'
method: True
| aBoolean
	^ true
%

category: 'logical operations'
method: True
and: aBlock
	^ aBlock value
%

category: 'logical operations'
method: True
or: aBlock
	^ true
%

category: 'logical operations'
method: True
xor: aBoolean
	^ aBoolean not
%

category: 'controlling'
method: True
ifTrue: aBlock
	^ aBlock value
%

category: 'controlling'
method: True
ifFalse: aBlock
	^ nil
%

category: 'controlling'
method: True
ifTrue: tBlock ifFalse: fBlock
	^ tBlock value
%

category: 'controlling'
method: True
ifFalse: fBlock ifTrue: tBlock
	^ tBlock value
%

category: 'printing'
method: False
printString
	^ 'false'
%

category: 'logical operations'
method: False
not
	^ true
%

category: 'logical operations'
method: False
& aBoolean
	^ false
%

category: 'logical operations'
method: False
| aBoolean
	^ aBoolean
%

category: 'logical operations'
method: False
and: aBlock
	^ false
%

category: 'logical operations'
method: False
or: aBlock
	^ aBlock value
%

category: 'logical operations'
method: False
xor: aBoolean
	^ aBoolean
%

category: 'controlling'
method: False
ifTrue: aBlock
	^ nil
%

category: 'controlling'
method: False
ifFalse: aBlock
	^ aBlock value
%

category: 'controlling'
method: False
ifTrue: tBlock ifFalse: fBlock
	^ fBlock value
%

category: 'controlling'
method: False
ifFalse: fBlock ifTrue: tBlock
	^ fBlock value
%

! ----------------------------------------------------------------------
! Numbers
! ----------------------------------------------------------------------

category: 'arithmetic'
method: Number
+ arg1
	<primitive: 100>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
- arg1
	<primitive: 101>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
* arg1
	<primitive: 102>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
/ arg1
	<primitive: 103>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
// arg1
	<primitive: 104>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
\\ arg1
	<primitive: 105>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
quo: arg1
	<primitive: 106>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
rem: arg1
	<primitive: 107>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
gcd: arg1
	<primitive: 124>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
lcm: arg1
	<primitive: 125>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
raisedTo: arg1
	<primitive: 131>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
roundTo: arg1
	<primitive: 151>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
truncateTo: arg1
	<primitive: 152>
	^ self _numberArgError: arg1
%

category: 'arithmetic'
method: Number
log: arg1
	<primitive: 143>
	^ self _numberArgError: arg1
%

category: 'comparing'
method: Number
< arg1
	<primitive: 108>
	^ self _numberArgError: arg1
%

category: 'comparing'
method: Number
> arg1
	<primitive: 109>
	^ self _numberArgError: arg1
%

category: 'comparing'
method: Number
<= arg1
	<primitive: 110>
	^ self _numberArgError: arg1
%

category: 'comparing'
method: Number
>= arg1
	<primitive: 111>
	^ self _numberArgError: arg1
%

category: 'comparing'
method: Number
= arg1
	<primitive: 112>
	^ false
%

category: 'comparing'
method: Number
~= arg1
	<primitive: 113>
	^ true
%

category: 'comparing'
method: Number
hash
	<primitive: 114>
	^ 0
%

category: 'arithmetic'
method: Number
negated
	<primitive: 115>
	^ self _primitiveFailed: #negated
%

category: 'arithmetic'
method: Number
abs
	<primitive: 116>
	^ self _primitiveFailed: #abs
%

category: 'arithmetic'
method: Number
asFloat
	<primitive: 117>
	^ self _primitiveFailed: #asFloat
%

category: 'arithmetic'
method: Number
truncated
	<primitive: 118>
	^ self _primitiveFailed: #truncated
%

category: 'arithmetic'
method: Number
rounded
	<primitive: 119>
	^ self _primitiveFailed: #rounded
%

category: 'arithmetic'
method: Number
floor
	<primitive: 120>
	^ self _primitiveFailed: #floor
%

category: 'arithmetic'
method: Number
ceiling
	<primitive: 121>
	^ self _primitiveFailed: #ceiling
%

category: 'arithmetic'
method: Number
sqrt
	<primitive: 130>
	^ self _primitiveFailed: #sqrt
%

category: 'arithmetic'
method: Number
asFraction
	<primitive: 133>
	^ self _primitiveFailed: #asFraction
%

category: 'arithmetic'
method: Number
asExactFraction
	<primitive: 133>
	^ self _primitiveFailed: #asExactFraction
%

category: 'arithmetic'
method: Number
numerator
	<primitive: 135>
	^ self _primitiveFailed: #numerator
%

category: 'arithmetic'
method: Number
denominator
	<primitive: 136>
	^ self _primitiveFailed: #denominator
%

category: 'arithmetic'
method: Number
ln
	<primitive: 137>
	^ self _primitiveFailed: #ln
%

category: 'arithmetic'
method: Number
exp
	<primitive: 138>
	^ self _primitiveFailed: #exp
%

category: 'arithmetic'
method: Number
sin
	<primitive: 139>
	^ self _primitiveFailed: #sin
%

category: 'arithmetic'
method: Number
cos
	<primitive: 140>
	^ self _primitiveFailed: #cos
%

category: 'arithmetic'
method: Number
tan
	<primitive: 141>
	^ self _primitiveFailed: #tan
%

category: 'arithmetic'
method: Number
arcTan
	<primitive: 142>
	^ self _primitiveFailed: #arcTan
%

category: 'arithmetic'
method: Number
isZero
	<primitive: 144>
	^ self _primitiveFailed: #isZero
%

category: 'arithmetic'
method: Number
sign
	<primitive: 145>
	^ self _primitiveFailed: #sign
%

category: 'arithmetic'
method: Number
asInteger
	<primitive: 149>
	^ self _primitiveFailed: #asInteger
%

category: 'arithmetic'
method: Number
fractionPart
	<primitive: 153>
	^ self _primitiveFailed: #fractionPart
%

category: 'arithmetic'
method: Number
integerPart
	<primitive: 154>
	^ self _primitiveFailed: #integerPart
%

category: 'arithmetic'
method: Number
negative
	<primitive: 157>
	^ self _primitiveFailed: #negative
%

category: 'arithmetic'
method: Number
squared
	<primitive: 158>
	^ self _primitiveFailed: #squared
%

category: 'printing'
method: Number
printString
	<primitive: 122>
	^ super printString
%

category: 'printing'
method: Number
displayString
	<primitive: 122>
	^ super printString
%

category: 'printing'
method: Number
_basicPrintString
	<primitive: 122>
	^ super printString
%

category: 'converting'
method: Number
asScaledDecimal: arg1
	<primitive: 134>
	^ self _primitiveFailed: #asScaledDecimal:
%

category: 'private'
method: Number
_numberArgError: anArg
	^ ArgumentTypeError new signal: anArg _basicPrintString, ' is not a Number'
%

category: 'testing'
method: Number
isNumber
	^ true
%

category: 'testing'
method: Number
positive
	^ self >= 0
%

category: 'testing'
method: Number
strictlyPositive
	^ self > 0
%

category: 'testing'
method: Number
even
	^ (self \\ 2) = 0
%

category: 'testing'
method: Number
odd
	^ self even not
%

category: 'testing'
method: Number
isNaN
	^ false
%

category: 'testing'
method: Number
isInfinite
	^ false
%

category: 'arithmetic'
method: Number
reciprocal
	^ 1 / self
%

category: 'comparing'
method: Number
between: min and: max
	^ self >= min and: [self <= max]
%

category: 'comparing'
method: Number
max: aNumber
	<primitive: 418>
	^ self > aNumber ifTrue: [self] ifFalse: [aNumber]
%

category: 'comparing'
method: Number
min: aNumber
	<primitive: 419>
	^ self < aNumber ifTrue: [self] ifFalse: [aNumber]
%

category: 'converting'
method: Number
asNumber
	^ self
%

category: 'printing'
method: Number
printOn: aStream
	aStream nextPutAll: self printString
%

category: 'intervals'
method: Number
to: stop do: aBlock
	| i |
	i := self.
	[i <= stop] whileTrue: [aBlock value: i. i := i + 1]
%

category: 'intervals'
method: Number
to: stop by: step do: aBlock
	| i |
	i := self.
	step = 0 ifTrue: [^ ArgumentError new signal: 'step must not be zero'].
	step > 0
		ifTrue: [[i <= stop] whileTrue: [aBlock value: i. i := i + step]]
		ifFalse: [[i >= stop] whileTrue: [aBlock value: i. i := i + step]]
%

category: 'bit manipulation'
method: Integer
bitAnd: arg1
	<primitive: 126>
	^ self _numberArgError: arg1
%

category: 'bit manipulation'
method: Integer
bitOr: arg1
	<primitive: 127>
	^ self _numberArgError: arg1
%

category: 'bit manipulation'
method: Integer
bitXor: arg1
	<primitive: 128>
	^ self _numberArgError: arg1
%

category: 'bit manipulation'
method: Integer
bitShift: arg1
	<primitive: 129>
	^ self _numberArgError: arg1
%

category: 'bit manipulation'
method: Integer
highBit
	<primitive: 146>
	^ self _primitiveFailed: #highBit
%

category: 'printing'
method: Integer
printString: arg1
	<primitive: 123>
	^ ArgumentError new signal: 'radix must be between 2 and 36'
%

category: 'printing'
method: Integer
printStringRadix: arg1
	<primitive: 123>
	^ ArgumentError new signal: 'radix must be between 2 and 36'
%

category: 'printing'
method: Integer
printStringRadix: radix
	^ radix printString, 'r', (self printString: radix)
%

category: 'printing'
method: Integer
printString: radix
	<primitive: 123>
	^ ArgumentError new signal: 'radix must be between 2 and 36'
%

category: 'arithmetic'
method: Integer
factorial
	<primitive: 132>
	^ ArgumentError new signal: 'factorial needs a non-negative integer'
%

category: 'arithmetic'
method: Integer
even
	<primitive: 159>
	^ self _primitiveFailed: #even
%

category: 'converting'
method: Integer
asCharacter
	<primitive: 147>
	^ OutOfRange new signal: 'not a valid code point: ', self printString
%

category: 'testing'
method: Integer
isInteger
	^ true
%

category: 'enumerating'
method: Integer
timesRepeat: aBlock
	| i |
	i := 1.
	[i <= self] whileTrue: [aBlock value. i := i + 1]
%

category: 'testing'
method: BinaryFloat
isFloat
	^ true
%

category: 'testing'
method: BinaryFloat
isNaN
	<primitive: 155>
	^ self _primitiveFailed: #isNaN
%

category: 'testing'
method: BinaryFloat
isInfinite
	<primitive: 156>
	^ self _primitiveFailed: #isInfinite
%

category: 'accessing'
method: ScaledDecimal
scale
	<primitive: 150>
	^ self _primitiveFailed: #scale
%

! ----------------------------------------------------------------------
! Character
! ----------------------------------------------------------------------

category: 'accessing'
method: Character
value
	<primitive: 160>
	^ self _primitiveFailed: #value
%

category: 'accessing'
method: Character
asInteger
	<primitive: 160>
	^ self _primitiveFailed: #asInteger
%

category: 'accessing'
method: Character
codePoint
	<primitive: 160>
	^ self _primitiveFailed: #codePoint
%

category: 'accessing'
method: Character
asciiValue
	<primitive: 160>
	^ self _primitiveFailed: #asciiValue
%

category: 'testing'
method: Character
isVowel
	<primitive: 162>
	^ self _primitiveFailed: #isVowel
%

category: 'testing'
method: Character
isLetter
	<primitive: 163>
	^ self _primitiveFailed: #isLetter
%

category: 'testing'
method: Character
isDigit
	<primitive: 164>
	^ self _primitiveFailed: #isDigit
%

category: 'testing'
method: Character
isSeparator
	<primitive: 165>
	^ self _primitiveFailed: #isSeparator
%

category: 'testing'
method: Character
isUppercase
	<primitive: 168>
	^ self _primitiveFailed: #isUppercase
%

category: 'testing'
method: Character
isLowercase
	<primitive: 169>
	^ self _primitiveFailed: #isLowercase
%

category: 'converting'
method: Character
asUppercase
	<primitive: 166>
	^ self _primitiveFailed: #asUppercase
%

category: 'converting'
method: Character
asLowercase
	<primitive: 167>
	^ self _primitiveFailed: #asLowercase
%

category: 'instance creation'
classmethod: Character
value: arg1
	<primitive: 161>
	^ OutOfRange new signal: 'not a valid code point'
%

category: 'instance creation'
classmethod: Character
codePoint: arg1
	<primitive: 161>
	^ OutOfRange new signal: 'not a valid code point'
%

category: 'instance creation'
classmethod: Character
withValue: arg1
	<primitive: 161>
	^ OutOfRange new signal: 'not a valid code point'
%

category: 'converting'
method: Character
asCharacter
	^ self
%

category: 'testing'
method: Character
isCharacter
	^ true
%

category: 'testing'
method: Character
isAlphaNumeric
	^ self isLetter or: [self isDigit]
%

category: 'comparing'
method: Character
< aCharacter
	^ self value < aCharacter value
%

category: 'comparing'
method: Character
> aCharacter
	^ self value > aCharacter value
%

category: 'comparing'
method: Character
<= aCharacter
	^ self value <= aCharacter value
%

category: 'comparing'
method: Character
>= aCharacter
	^ self value >= aCharacter value
%

category: 'converting'
method: Character
asString
	^ String new: 1 withAll: self
%

category: 'converting'
method: Character
asSymbol
	^ self asString asSymbol
%

category: 'instance creation'
classmethod: Character
cr
	^ Character value: 13
%

category: 'instance creation'
classmethod: Character
lf
	^ Character value: 10
%

category: 'instance creation'
classmethod: Character
tab
	^ Character value: 9
%

category: 'instance creation'
classmethod: Character
space
	^ Character value: 32
%

category: 'instance creation'
classmethod: Character
nul
	^ Character value: 0
%

category: 'instance creation'
classmethod: Character
esc
	^ Character value: 27
%

category: 'instance creation'
classmethod: Character
newPage
	^ Character value: 12
%

category: 'instance creation'
classmethod: Character
backspace
	^ Character value: 8
%

! ----------------------------------------------------------------------
! Strings and symbols
! ----------------------------------------------------------------------

category: 'concatenating'
method: CharacterCollection
, arg1
	<primitive: 200>
	^ ArgumentTypeError new signal: 'cannot concatenate ', arg1 _basicPrintString
%

category: 'comparing'
method: CharacterCollection
= arg1
	<primitive: 201>
	^ false
%

category: 'comparing'
method: CharacterCollection
< arg1
	<primitive: 202>
	^ self _primitiveFailed: #<
%

category: 'comparing'
method: CharacterCollection
> arg1
	<primitive: 203>
	^ self _primitiveFailed: #>
%

category: 'comparing'
method: CharacterCollection
<= arg1
	<primitive: 204>
	^ self _primitiveFailed: #<=
%

category: 'comparing'
method: CharacterCollection
>= arg1
	<primitive: 205>
	^ self _primitiveFailed: #>=
%

category: 'comparing'
method: CharacterCollection
hash
	<primitive: 206>
	^ 0
%

category: 'comparing'
method: CharacterCollection
sameAs: arg1
	<primitive: 235>
	^ false
%

category: 'converting'
method: CharacterCollection
asSymbol
	<primitive: 207>
	^ self _primitiveFailed: #asSymbol
%

category: 'converting'
method: CharacterCollection
asString
	<primitive: 208>
	^ self _primitiveFailed: #asString
%

category: 'converting'
method: CharacterCollection
asUppercase
	<primitive: 212>
	^ self _primitiveFailed: #asUppercase
%

category: 'converting'
method: CharacterCollection
asLowercase
	<primitive: 213>
	^ self _primitiveFailed: #asLowercase
%

category: 'converting'
method: CharacterCollection
encodeAsUTF8
	<primitive: 215>
	^ self _primitiveFailed: #encodeAsUTF8
%

category: 'converting'
method: CharacterCollection
decodeFromUTF8
	<primitive: 216>
	^ self _primitiveFailed: #decodeFromUTF8
%

category: 'converting'
method: CharacterCollection
asNumber
	<primitive: 219>
	^ nil
%

category: 'converting'
method: CharacterCollection
asInteger
	<primitive: 220>
	^ nil
%

category: 'converting'
method: CharacterCollection
trimSeparators
	<primitive: 226>
	^ self _primitiveFailed: #trimSeparators
%

category: 'converting'
method: CharacterCollection
subStrings
	<primitive: 227>
	^ self _primitiveFailed: #subStrings
%

category: 'converting'
method: CharacterCollection
substrings
	<primitive: 227>
	^ self _primitiveFailed: #substrings
%

category: 'converting'
method: CharacterCollection
subStrings: arg1
	<primitive: 228>
	^ self _primitiveFailed: #subStrings:
%

category: 'converting'
method: CharacterCollection
substrings: arg1
	<primitive: 228>
	^ self _primitiveFailed: #substrings:
%

category: 'converting'
method: CharacterCollection
asUnicodeString
	<primitive: 233>
	^ self _primitiveFailed: #asUnicodeString
%

category: 'converting'
method: CharacterCollection
asByteArray
	<primitive: 230>
	^ self _primitiveFailed: #asByteArray
%

category: 'converting'
method: CharacterCollection
keywords
	<primitive: 239>
	^ self _primitiveFailed: #keywords
%

category: 'printing'
method: CharacterCollection
printString
	<primitive: 214>
	^ super printString
%

category: 'printing'
method: CharacterCollection
displayString
	<primitive: 218>
	^ super printString
%

category: 'searching'
method: CharacterCollection
includesSubstring: arg1
	<primitive: 211>
	^ false
%

category: 'searching'
method: CharacterCollection
includesString: arg1
	<primitive: 229>
	^ false
%

category: 'searching'
method: CharacterCollection
startsWith: arg1
	<primitive: 236>
	^ false
%

category: 'searching'
method: CharacterCollection
endsWith: arg1
	<primitive: 237>
	^ false
%

category: 'searching'
method: CharacterCollection
matchPattern: arg1
	<primitive: 238>
	^ false
%

category: 'searching'
method: CharacterCollection
_findString: arg1 startingAt: arg2 ignoreCase: arg3
	<primitive: 221>
	^ 0
%

category: 'execution'
method: CharacterCollection
evaluate
	<primitive: 217>
	^ self _primitiveFailed: #evaluate
%

category: 'searching'
method: CharacterCollection
findString: aString startingAt: anIndex
	^ self _findString: aString startingAt: anIndex ignoreCase: false
%

category: 'testing'
method: CharacterCollection
isString
	^ true
%

category: 'testing'
method: CharacterCollection
isEmpty
	^ self size = 0
%

category: 'testing'
method: CharacterCollection
notEmpty
	^ self size > 0
%

category: 'printing'
method: CharacterCollection
printOn: aStream
	aStream nextPutAll: self printString
%

category: 'printing'
method: CharacterCollection
displayOn: aStream
	aStream nextPutAll: self
%

category: 'converting'
method: CharacterCollection
asCharacter
	^ self size = 1 ifTrue: [self at: 1] ifFalse: [nil]
%

category: 'instance creation'
classmethod: String
new: anInteger withAll: aCharacter
	<primitive: 234>
	^ ArgumentTypeError new signal: 'new:withAll: needs a size and a Character'
%

category: 'instance creation'
classmethod: MultiByteString
new: anInteger withAll: aCharacter
	<primitive: 234>
	^ ArgumentTypeError new signal: 'new:withAll: needs a size and a Character'
%

category: 'accessing'
method: Symbol
numArgs
	<primitive: 223>
	^ self _primitiveFailed: #numArgs
%

category: 'testing'
method: Symbol
isSymbol
	^ true
%

category: 'converting'
method: Symbol
asSymbol
	^ self
%

category: 'copying'
method: Symbol
shallowCopy
	^ self
%

category: 'comparing'
method: Symbol
= anObject
	^ self == anObject
%

category: 'comparing'
method: Symbol
hash
	^ self identityHash
%

category: 'comparing'
method: DoubleByteSymbol
= anObject
	^ self == anObject
%

category: 'comparing'
method: QuadByteSymbol
= anObject
	^ self == anObject
%

category: 'instance creation'
classmethod: Symbol
withAll: aString
	^ aString asSymbol
%

category: 'instance creation'
classmethod: Symbol
new
	^ self shouldNotImplement
%

! ----------------------------------------------------------------------
! Sequenceable basics (the kernel files add the collection protocol)
! ----------------------------------------------------------------------

category: 'copying'
method: ArrayedCollection
copyFrom: arg1 to: arg2
	<primitive: 209>
	^ OutOfRange new signal: 'copyFrom:to: indices out of range'
%

category: 'copying'
method: ArrayedCollection
reverse
	<primitive: 225>
	^ self _primitiveFailed: #reverse
%

category: 'copying'
method: ArrayedCollection
reversed
	<primitive: 225>
	^ self _primitiveFailed: #reversed
%

category: 'searching'
method: ArrayedCollection
indexOf: arg1
	<primitive: 210>
	^ 0
%

category: 'searching'
method: ArrayedCollection
occurrencesOf: arg1
	<primitive: 231>
	^ 0
%

category: 'accessing'
method: ArrayedCollection
replaceFrom: arg1 to: arg2 with: arg3 startingAt: arg4
	"The primitive copies from another indexable collection. Any other
	SequenceableCollection (an OrderedCollection, an Interval) is copied
	element by element once the whole range is known to fit, so a failure
	changes nothing."
	<primitive: 222>
	((arg3 isKindOf: SequenceableCollection)
		and: [(arg3 isKindOf: ArrayedCollection) not
		and: [(arg1 isKindOf: SmallInteger) and: [(arg2 isKindOf: SmallInteger)
		and: [(arg4 isKindOf: SmallInteger) and: [arg1 >= 1 and: [arg4 >= 1
		and: [arg2 <= self size and: [arg4 + arg2 - arg1 <= arg3 size]]]]]]]])
			ifTrue: [^ super replaceFrom: arg1 to: arg2 with: arg3 startingAt: arg4].
	^ OutOfRange new signal: 'replaceFrom:to:with:startingAt: out of range'
%

category: 'converting'
method: ByteArray
decodeFromUTF8
	<primitive: 216>
	^ ArgumentError new signal: 'invalid UTF-8'
%

category: 'converting'
method: ByteArray
asString
	| s |
	s := String new: self size.
	1 to: self size do: [:i | s at: i put: (Character value: (self at: i))].
	^ s
%

category: 'testing'
method: Array
isArray
	^ true
%

category: 'printing'
method: Array
printString
	<primitive: 14>
	^ 'anArray'
%

! ----------------------------------------------------------------------
! Behavior
! ----------------------------------------------------------------------

category: 'instance creation'
method: Behavior
basicNew
	<primitive: 40>
	^ self _cannotInstantiate
%

category: 'instance creation'
method: Behavior
basicNew: arg1
	<primitive: 41>
	^ self _cannotInstantiate
%

category: 'instance creation'
method: Behavior
new
	<primitive: 77>
	^ self _cannotInstantiate
%

category: 'instance creation'
method: Behavior
new: arg1
	<primitive: 78>
	^ self _cannotInstantiate
%

category: 'private'
method: Behavior
_cannotInstantiate
	^ ImproperOperation new signal: 'cannot create an instance of ', self name, ' this way'
%

category: 'accessing'
method: Behavior
name
	<primitive: 42>
	^ self _primitiveFailed: #name
%

category: 'accessing'
method: Behavior
superclass
	<primitive: 43>
	^ self _primitiveFailed: #superclass
%

category: 'accessing'
method: Behavior
instVarNames
	<primitive: 44>
	^ self _primitiveFailed: #instVarNames
%

category: 'accessing'
method: Behavior
allInstVarNames
	<primitive: 45>
	^ self _primitiveFailed: #allInstVarNames
%

category: 'accessing'
method: Behavior
selectors
	<primitive: 46>
	^ self _primitiveFailed: #selectors
%

category: 'accessing'
method: Behavior
categoryNames
	<primitive: 52>
	^ self _primitiveFailed: #categoryNames
%

category: 'accessing'
method: Behavior
subclasses
	<primitive: 55>
	^ self _primitiveFailed: #subclasses
%

category: 'accessing'
method: Behavior
comment
	<primitive: 56>
	^ self _primitiveFailed: #comment
%

category: 'accessing'
method: Behavior
comment: arg1
	<primitive: 57>
	^ self _primitiveFailed: #comment:
%

category: 'accessing'
method: Behavior
category
	<primitive: 58>
	^ self _primitiveFailed: #category
%

category: 'accessing'
method: Behavior
category: arg1
	<primitive: 59>
	^ self _primitiveFailed: #category:
%

category: 'accessing'
method: Behavior
classVarNames
	<primitive: 60>
	^ self _primitiveFailed: #classVarNames
%

category: 'accessing'
method: Behavior
isMeta
	<primitive: 62>
	^ self _primitiveFailed: #isMeta
%

category: 'accessing'
method: Behavior
instSize
	<primitive: 63>
	^ self _primitiveFailed: #instSize
%

category: 'accessing'
method: Behavior
isBytes
	<primitive: 64>
	^ self _primitiveFailed: #isBytes
%

category: 'accessing'
method: Behavior
isIndexable
	<primitive: 65>
	^ self _primitiveFailed: #isIndexable
%

category: 'accessing'
method: Behavior
thisClass
	<primitive: 67>
	^ self _primitiveFailed: #thisClass
%

category: 'accessing'
method: Behavior
theNonMetaClass
	<primitive: 67>
	^ self _primitiveFailed: #theNonMetaClass
%

category: 'accessing'
method: Behavior
sharedPools
	<primitive: 68>
	^ self _primitiveFailed: #sharedPools
%

category: 'accessing'
method: Behavior
allSuperclasses
	<primitive: 72>
	^ self _primitiveFailed: #allSuperclasses
%

category: 'accessing'
method: Behavior
definition
	<primitive: 74>
	^ self _primitiveFailed: #definition
%

category: 'accessing'
method: Behavior
classHistory
	<primitive: 75>
	^ self _primitiveFailed: #classHistory
%

category: 'accessing'
method: Behavior
removeAllMethods
	<primitive: 76>
	^ self _primitiveFailed: #removeAllMethods
%

category: 'method dictionary'
method: Behavior
compileMethod: arg1 dictionaries: arg2 category: arg3 environmentId: arg4
	<primitive: 47>
	^ ArgumentTypeError new signal: 'compileMethod: needs source and category Strings'
%

category: 'method dictionary'
method: Behavior
removeSelector: arg1
	<primitive: 48>
	^ self _primitiveFailed: #removeSelector:
%

category: 'method dictionary'
method: Behavior
sourceCodeAt: arg1
	<primitive: 49>
	^ nil
%

category: 'method dictionary'
method: Behavior
compiledMethodAt: arg1
	<primitive: 50>
	^ nil
%

category: 'method dictionary'
method: Behavior
includesSelector: arg1
	<primitive: 51>
	^ false
%

category: 'method dictionary'
method: Behavior
selectorsIn: arg1
	<primitive: 53>
	^ #()
%

category: 'method dictionary'
method: Behavior
categoryOfSelector: arg1
	<primitive: 54>
	^ nil
%

category: 'method dictionary'
method: Behavior
lookupSelector: arg1
	<primitive: 66>
	^ nil
%

category: 'method dictionary'
method: Behavior
moveMethod: arg1 toCategory: arg2
	<primitive: 69>
	^ self _primitiveFailed: #moveMethod:toCategory:
%

category: 'method dictionary'
method: Behavior
classVarAt: arg1
	<primitive: 70>
	^ LookupError new signal: 'no class variable ', arg1 printString
%

category: 'method dictionary'
method: Behavior
classVarAt: arg1 put: arg2
	<primitive: 71>
	^ LookupError new signal: 'no class variable ', arg1 printString
%

category: 'method dictionary'
method: Behavior
inheritsFrom: arg1
	<primitive: 73>
	^ false
%

category: 'method dictionary'
method: Behavior
compiledMethodAt: aSelector environmentId: envId
	^ self compiledMethodAt: aSelector
%

category: 'method dictionary'
method: Behavior
compiledMethodAt: aSelector environmentId: envId otherwise: aValue
	^ (self compiledMethodAt: aSelector) ifNil: [aValue]
%

category: 'method dictionary'
method: Behavior
compiledMethodAt: aSelector otherwise: aValue
	^ (self compiledMethodAt: aSelector) ifNil: [aValue]
%

category: 'method dictionary'
method: Behavior
categoryOfSelector: aSelector environmentId: envId
	^ self categoryOfSelector: aSelector
%

category: 'method dictionary'
method: Behavior
sortedSelectorsIn: aCategory
	^ self selectorsIn: aCategory
%

category: 'method dictionary'
method: Behavior
includesCategory: aCategory
	^ (self categoryNames indexOf: aCategory asSymbol) > 0
%

category: 'method dictionary'
method: Behavior
canUnderstand: aSelector
	^ (self lookupSelector: aSelector) notNil
%

category: 'method dictionary'
method: Behavior
compileMethod: sourceString dictionaries: aSymbolList category: aCategory
	^ [self compileMethod: sourceString dictionaries: aSymbolList category: aCategory environmentId: 0. nil]
		on: CompileError
		do: [:ex | ex return: ex errorDetails]
%

category: 'method dictionary'
method: Behavior
compileMethod: sourceString category: aCategory
	^ self compileMethod: sourceString dictionaries: System myUserProfile symbolList category: aCategory environmentId: 0
%

category: 'method dictionary'
method: Behavior
compile: sourceString
	^ self compileMethod: sourceString dictionaries: System myUserProfile symbolList category: 'as yet unclassified' environmentId: 0
%

category: 'testing'
method: Behavior
isBehavior
	^ true
%

category: 'testing'
method: Behavior
isSubclassOf: aClass
	^ self == aClass or: [self inheritsFrom: aClass]
%

category: 'testing'
method: Behavior
includesBehavior: aClass
	^ self isSubclassOf: aClass
%

category: 'printing'
method: Behavior
printString
	<primitive: 14>
	^ 'a Class'
%

category: 'printing'
method: Behavior
displayString
	^ self printString
%

category: 'accessing'
method: Behavior
allSubclasses
	| result i |
	result := self subclasses.
	i := 1.
	[i <= result size] whileTrue: [
		result := result, (result at: i) subclasses.
		i := i + 1].
	^ result
%

category: 'testing'
method: Class
isClass
	^ true
%

category: 'testing'
method: Metaclass
isMeta
	^ true
%

category: 'accessing'
method: Metaclass
name
	^ self theNonMetaClass name
%

category: 'printing'
method: Metaclass
printString
	^ self theNonMetaClass name, ' class'
%

category: 'subclass creation'
method: Class
subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options format: #pointer
%

category: 'subclass creation'
method: Class
subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: #() format: #pointer
%

category: 'subclass creation'
method: Class
subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: #() poolDictionaries: pools inDictionary: aDictionary options: #() format: #pointer
%

category: 'subclass creation'
method: Class
indexableSubclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options format: #indexable
%

category: 'subclass creation'
method: Class
indexableSubclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: #() format: #indexable
%

category: 'subclass creation'
method: Class
indexableSubclass: aString instVarNames: anArrayOfIvars classVars: classVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: classVarNames classInstVars: #() poolDictionaries: pools inDictionary: aDictionary options: #() format: #indexable
%

category: 'subclass creation'
method: Class
byteSubclass: aString classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options
	^ self _subclass: aString instVarNames: #() classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: options format: #bytes
%

category: 'subclass creation'
method: Class
byteSubclass: aString classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: #() classVars: classVarNames classInstVars: classInstVarNames poolDictionaries: pools inDictionary: aDictionary options: #() format: #bytes
%

category: 'subclass creation'
method: Class
byteSubclass: aString classVars: classVarNames poolDictionaries: pools inDictionary: aDictionary
	^ self _subclass: aString instVarNames: #() classVars: classVarNames classInstVars: #() poolDictionaries: pools inDictionary: aDictionary options: #() format: #bytes
%

category: 'subclass creation'
method: Class
subclass: aString
	^ self _subclass: aString instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #() format: #pointer
%

category: 'subclass creation'
method: Class
subclass: aString instVarNames: anArrayOfIvars inDictionary: aDictionary
	^ self _subclass: aString instVarNames: anArrayOfIvars classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: aDictionary options: #() format: #pointer
%

category: 'private'
method: Class
_subclass: aString instVarNames: ivars classVars: cvars classInstVars: civars poolDictionaries: pools inDictionary: aDictionary options: options format: aFormat
	<primitive: 61>
	^ ArgumentTypeError new signal: 'invalid class definition arguments'
%

! ----------------------------------------------------------------------
! Blocks
! ----------------------------------------------------------------------

category: 'evaluating'
method: ExecBlock
value
	<primitive: 250>
	^ self _wrongArgCount: 0
%

category: 'evaluating'
method: ExecBlock
value: arg1
	<primitive: 250>
	^ self _wrongArgCount: 1
%

category: 'evaluating'
method: ExecBlock
value: arg1 value: arg2
	<primitive: 250>
	^ self _wrongArgCount: 2
%

category: 'evaluating'
method: ExecBlock
value: arg1 value: arg2 value: arg3
	<primitive: 250>
	^ self _wrongArgCount: 3
%

category: 'evaluating'
method: ExecBlock
value: arg1 value: arg2 value: arg3 value: arg4
	<primitive: 250>
	^ self _wrongArgCount: 4
%

category: 'evaluating'
method: ExecBlock
valueWithArguments: arg1
	<primitive: 251>
	^ self _wrongArgCount: arg1 size
%

category: 'evaluating'
method: ExecBlock
numArgs
	<primitive: 252>
	^ 0
%

category: 'private'
method: ExecBlock
_wrongArgCount: n
	^ ArgumentError new signal: 'wrong number of arguments: the block takes ', self numArgs printString, ', not ', n printString
%

category: 'exceptions'
method: ExecBlock
on: arg1 do: arg2
	<primitive: 253>
	^ nil
%

category: 'exceptions'
method: ExecBlock
ensure: arg1
	<primitive: 254>
	^ nil
%

category: 'exceptions'
method: ExecBlock
ifCurtailed: arg1
	<primitive: 255>
	^ nil
%

category: 'controlling'
method: ExecBlock
whileTrue
	<primitive: 256>
	^ nil
%

category: 'controlling'
method: ExecBlock
whileFalse
	<primitive: 257>
	^ nil
%

category: 'controlling'
method: ExecBlock
whileTrue: arg1
	<primitive: 258>
	^ nil
%

category: 'controlling'
method: ExecBlock
whileFalse: arg1
	<primitive: 259>
	^ nil
%

category: 'controlling'
method: ExecBlock
repeat
	<primitive: 260>
	^ nil
%

category: 'evaluating'
method: ExecBlock
cull: anArg
	^ self numArgs = 0 ifTrue: [self value] ifFalse: [self value: anArg]
%

! ----------------------------------------------------------------------
! Exceptions
! ----------------------------------------------------------------------

category: 'signaling'
method: AbstractException
signal
	<primitive: 270>
	^ nil
%

category: 'signaling'
method: AbstractException
signal: arg1
	<primitive: 271>
	^ nil
%

category: 'handling'
method: AbstractException
return: arg1
	<primitive: 272>
	^ nil
%

category: 'handling'
method: AbstractException
retry
	<primitive: 273>
	^ nil
%

category: 'handling'
method: AbstractException
retryUsing: arg1
	<primitive: 274>
	^ nil
%

category: 'handling'
method: AbstractException
pass
	<primitive: 275>
	^ nil
%

category: 'handling'
method: AbstractException
outer
	<primitive: 276>
	^ nil
%

category: 'handling'
method: AbstractException
resume: arg1
	<primitive: 277>
	^ nil
%

category: 'handling'
method: AbstractException
resignalAs: arg1
	<primitive: 278>
	^ nil
%

category: 'handling'
method: AbstractException
isNested
	<primitive: 279>
	^ false
%

category: 'handling'
method: AbstractException
_unhandled
	<primitive: 280>
	^ nil
%

category: 'handling'
method: AbstractException
_description
	<primitive: 285>
	^ 'an exception'
%

category: 'handling'
method: AbstractException
return
	^ self return: nil
%

category: 'Accessing'
method: AbstractException
stackReport
	"The activations running when the receiver was last signalled, innermost
	 first, one line each; nil if it was never signalled."
	<primitive: 286>
	^ nil
%

category: 'handling'
method: AbstractException
resume
	^ self resume: nil
%

category: 'handling'
method: AbstractException
signal: aString with: ignored
	^ self signal: aString
%

category: 'handling'
method: AbstractException
defaultAction
	^ self _unhandled
%

category: 'handling'
method: AbstractException
isResumable
	^ true
%

category: 'accessing'
method: AbstractException
messageText
	^ messageText
%

category: 'accessing'
method: AbstractException
messageText: aString
	messageText := aString
%

category: 'accessing'
method: AbstractException
description
	^ self _description
%

category: 'accessing'
method: AbstractException
number
	^ gsNumber
%

category: 'accessing'
method: AbstractException
gsNumber
	^ gsNumber
%

category: 'accessing'
method: AbstractException
tag
	^ tag
%

category: 'accessing'
method: AbstractException
tag: anObject
	tag := anObject
%

category: 'accessing'
method: AbstractException
gsArguments
	^ gsArgs ifNil: [#()]
%

category: 'accessing'
method: AbstractException
details
	^ gsDetails
%

category: 'printing'
method: AbstractException
printString
	^ self _basicPrintString
%

category: 'signaling'
classmethod: AbstractException
signal
	^ self new signal
%

category: 'signaling'
classmethod: AbstractException
signal: aString
	^ self new signal: aString
%

category: 'signaling'
classmethod: AbstractException
handles: anException
	^ anException isKindOf: self
%

category: 'signaling'
classmethod: AbstractException
, anExceptionClass
	^ ExceptionSet new _exceptions: { self. anExceptionClass }
%

category: 'testing'
classmethod: AbstractException
isExceptionClass
	^ true
%

category: 'private'
method: ExceptionSet
_exceptions: anArray
	exceptions := anArray
%

category: 'accessing'
method: ExceptionSet
exceptions
	^ exceptions
%

category: 'combining'
method: ExceptionSet
, anException
	^ ExceptionSet new _exceptions: exceptions, { anException }
%

category: 'testing'
method: ExceptionSet
handles: anException
	1 to: exceptions size do: [:i | ((exceptions at: i) handles: anException) ifTrue: [^ true]].
	^ false
%

category: 'handling'
method: Error
isResumable
	^ false
%

category: 'handling'
method: MessageNotUnderstood
isResumable
	^ true
%

category: 'accessing'
method: MessageNotUnderstood
receiver
	^ receiver
%

category: 'accessing'
method: MessageNotUnderstood
message
	^ message
%

category: 'accessing'
method: MessageNotUnderstood
_receiver: anObject message: aMessage
	receiver := anObject.
	message := aMessage
%

category: 'handling'
method: Notification
defaultAction
	^ nil
%

category: 'handling'
method: Warning
defaultAction
	^ nil
%

category: 'accessing'
method: CompileError
errorDetails
	^ gsArgs isNil ifTrue: [#()] ifFalse: [gsArgs at: 1]
%

! ----------------------------------------------------------------------
! Association, Message, GsNMethod
! ----------------------------------------------------------------------

category: 'accessing'
method: Association
key
	^ key
%

category: 'accessing'
method: Association
value
	^ value
%

category: 'accessing'
method: Association
key: aKey
	key := aKey
%

category: 'accessing'
method: Association
value: aValue
	value := aValue
%

category: 'accessing'
method: Association
key: aKey value: aValue
	key := aKey.
	value := aValue
%

category: 'comparing'
method: Association
= anAssociation
	^ (anAssociation isKindOf: Association) and: [key = anAssociation key and: [value = anAssociation value]]
%

category: 'comparing'
method: Association
hash
	^ key hash
%

category: 'printing'
method: Association
printString
	^ key printString, '->', value printString
%

category: 'instance creation'
classmethod: Association
key: aKey value: aValue
	^ self new key: aKey value: aValue
%

category: 'accessing'
method: Message
selector
	^ selector
%

category: 'accessing'
method: Message
arguments
	^ args
%

category: 'accessing'
method: Message
args
	^ args
%

category: 'accessing'
method: Message
selector: aSymbol arguments: anArray
	selector := aSymbol.
	args := anArray
%

category: 'instance creation'
classmethod: Message
selector: aSymbol arguments: anArray
	^ self new selector: aSymbol arguments: anArray
%

category: 'accessing'
method: GsNMethod
selector
	<primitive: 90>
	^ self _primitiveFailed: #selector
%

category: 'accessing'
method: GsNMethod
sourceString
	<primitive: 91>
	^ self _primitiveFailed: #sourceString
%

category: 'accessing'
method: GsNMethod
inClass
	<primitive: 92>
	^ self _primitiveFailed: #inClass
%

category: 'accessing'
method: GsNMethod
category
	<primitive: 93>
	^ self _primitiveFailed: #category
%

category: 'accessing'
method: GsNMethod
literals
	<primitive: 94>
	^ self _primitiveFailed: #literals
%

category: 'accessing'
method: GsNMethod
environmentId
	<primitive: 95>
	^ self _primitiveFailed: #environmentId
%

category: 'accessing'
method: GsNMethod
instVarsAccessed
	<primitive: 96>
	^ self _primitiveFailed: #instVarsAccessed
%

category: 'accessing'
method: GsNMethod
_selectorsSent
	<primitive: 97>
	^ self _primitiveFailed: #_selectorsSent
%

category: 'accessing'
method: GsNMethod
numArgs
	<primitive: 98>
	^ self _primitiveFailed: #numArgs
%

category: 'printing'
method: GsNMethod
printString
	^ self inClass name, '>>', self selector
%

category: 'testing'
method: GsNMethod
sendsSelector: aSelector
	^ (self _selectorsSent indexOf: aSelector asSymbol) > 0
%

! ----------------------------------------------------------------------
! SymbolDictionary, SymbolList, UserProfile, System, Transcript
! ----------------------------------------------------------------------

category: 'accessing'
method: SymbolDictionary
at: arg1
	<primitive: 320>
	^ LookupError new signal: 'key not found: ', arg1 printString
%

category: 'accessing'
method: SymbolDictionary
at: arg1 put: arg2
	<primitive: 321>
	^ self _primitiveFailed: #at:put:
%

category: 'accessing'
method: SymbolDictionary
associationAt: arg1
	<primitive: 322>
	^ nil
%

category: 'accessing'
method: SymbolDictionary
removeKey: arg1
	<primitive: 323>
	^ LookupError new signal: 'key not found: ', arg1 printString
%

category: 'accessing'
method: SymbolDictionary
includesKey: arg1
	<primitive: 324>
	^ false
%

category: 'accessing'
method: SymbolDictionary
keys
	<primitive: 325>
	^ self _primitiveFailed: #keys
%

category: 'accessing'
method: SymbolDictionary
size
	<primitive: 326>
	^ self _primitiveFailed: #size
%

category: 'accessing'
method: SymbolDictionary
associations
	<primitive: 327>
	^ self _primitiveFailed: #associations
%

category: 'accessing'
method: SymbolDictionary
values
	<primitive: 328>
	^ self _primitiveFailed: #values
%

category: 'accessing'
method: SymbolDictionary
keyAtValue: arg1
	<primitive: 330>
	^ nil
%

category: 'accessing'
method: SymbolDictionary
add: arg1
	<primitive: 331>
	^ self _primitiveFailed: #add:
%

category: 'instance creation'
classmethod: SymbolDictionary
new
	<primitive: 329>
	^ self _cannotInstantiate
%

category: 'instance creation'
classmethod: SymbolDictionary
new: anInteger
	^ self new
%

category: 'accessing'
method: SymbolDictionary
at: aKey ifAbsent: aBlock
	| assoc |
	assoc := self associationAt: aKey.
	^ assoc isNil ifTrue: [aBlock value] ifFalse: [assoc value]
%

category: 'accessing'
method: SymbolDictionary
at: aKey otherwise: aValue
	| assoc |
	assoc := self associationAt: aKey.
	^ assoc isNil ifTrue: [aValue] ifFalse: [assoc value]
%

category: 'accessing'
method: SymbolDictionary
at: aKey ifAbsentPut: aBlock
	| assoc |
	assoc := self associationAt: aKey.
	^ assoc isNil ifTrue: [self at: aKey put: aBlock value] ifFalse: [assoc value]
%

category: 'accessing'
method: SymbolDictionary
associationAt: aKey ifAbsent: aBlock
	^ (self associationAt: aKey) ifNil: [aBlock value]
%

category: 'accessing'
method: SymbolDictionary
removeKey: aKey ifAbsent: aBlock
	^ (self includesKey: aKey) ifTrue: [self removeKey: aKey] ifFalse: [aBlock value]
%

category: 'accessing'
method: SymbolDictionary
name
	^ self keyAtValue: self
%

category: 'accessing'
method: SymbolDictionary
name: aSymbol
	self at: aSymbol asSymbol put: self
%

category: 'testing'
method: SymbolDictionary
isEmpty
	^ self size = 0
%

category: 'testing'
method: SymbolDictionary
notEmpty
	^ self size > 0
%

category: 'enumerating'
method: SymbolDictionary
keysAndValuesDo: aBlock
	| assocs |
	assocs := self associations.
	1 to: assocs size do: [:i | | a | a := assocs at: i. aBlock value: a key value: a value]
%

category: 'enumerating'
method: SymbolDictionary
associationsDo: aBlock
	| assocs |
	assocs := self associations.
	1 to: assocs size do: [:i | aBlock value: (assocs at: i)]
%

category: 'enumerating'
method: SymbolDictionary
keysDo: aBlock
	| ks |
	ks := self keys.
	1 to: ks size do: [:i | aBlock value: (ks at: i)]
%

category: 'enumerating'
method: SymbolDictionary
valuesDo: aBlock
	| vs |
	vs := self values.
	1 to: vs size do: [:i | aBlock value: (vs at: i)]
%

category: 'enumerating'
method: SymbolDictionary
do: aBlock
	^ self valuesDo: aBlock
%

category: 'printing'
method: SymbolDictionary
printString
	^ self name isNil ifTrue: ['a ', self class name] ifFalse: [self name asString]
%

category: 'accessing'
classmethod: SessionTemps
current
	<primitive: 319>
	^ nil
%

category: 'accessing'
method: SymbolList
names
	| result |
	result := Array new: self size.
	1 to: self size do: [:i | result at: i put: (self at: i) name].
	^ result
%

category: 'accessing'
method: SymbolList
resolveSymbol: aSymbol
	1 to: self size do: [:i | | a | a := (self at: i) associationAt: aSymbol. a notNil ifTrue: [^ a]].
	^ nil
%

category: 'accessing'
method: SymbolList
objectNamed: aSymbol
	| a |
	a := self resolveSymbol: aSymbol.
	^ a isNil ifTrue: [nil] ifFalse: [a value]
%

category: 'accessing'
method: SymbolList
dictionaryAndSymbolOf: anObject
	1 to: self size do: [:i | | d k |
		d := self at: i.
		k := d keyAtValue: anObject.
		k notNil ifTrue: [^ { d. k }]].
	^ nil
%

category: 'accessing'
method: UserProfile
userId
	^ userId
%

category: 'accessing'
method: UserProfile
symbolList
	^ symbolList
%

category: 'accessing'
method: UserProfile
objectNamed: aSymbol
	^ symbolList objectNamed: aSymbol
%

category: 'accessing'
method: UserProfile
resolveSymbol: aSymbol
	^ symbolList resolveSymbol: aSymbol
%

category: 'accessing'
method: UserProfile
dictionaryAndSymbolOf: anObject
	^ symbolList dictionaryAndSymbolOf: anObject
%

category: 'accessing'
method: UserProfile
createDictionary: aSymbol
	| d |
	d := SymbolDictionary new.
	d name: aSymbol.
	^ d
%

category: 'accessing'
method: UserProfile
insertDictionary: aDictionary at: anIndex
	| old new |
	old := symbolList.
	(anIndex between: 1 and: old size + 1) ifFalse: [^ OutOfRange new signal: 'index out of range'].
	new := SymbolList new: old size + 1.
	1 to: anIndex - 1 do: [:i | new at: i put: (old at: i)].
	new at: anIndex put: aDictionary.
	anIndex to: old size do: [:i | new at: i + 1 put: (old at: i)].
	old become: new
%

category: 'accessing'
method: UserProfile
removeDictionaryAt: anIndex
	| old new |
	old := symbolList.
	(anIndex between: 1 and: old size) ifFalse: [^ OutOfRange new signal: 'index out of range'].
	new := SymbolList new: old size - 1.
	1 to: anIndex - 1 do: [:i | new at: i put: (old at: i)].
	anIndex + 1 to: old size do: [:i | new at: i - 1 put: (old at: i)].
	old become: new
%

category: 'session'
classmethod: System
myUserProfile
	<primitive: 310>
	^ nil
%

category: 'session'
classmethod: System
stoneName
	<primitive: 311>
	^ nil
%

category: 'session'
classmethod: System
session
	<primitive: 312>
	^ nil
%

category: 'session'
classmethod: System
commitTransaction
	<primitive: 313>
	^ nil
%

category: 'session'
classmethod: System
abortTransaction
	<primitive: 314>
	^ nil
%

category: 'session'
classmethod: System
inTransaction
	<primitive: 315>
	^ nil
%

category: 'session'
classmethod: System
needsCommit
	<primitive: 316>
	^ nil
%

category: 'session'
classmethod: System
millisecondClockValue
	<primitive: 317>
	^ nil
%

category: 'session'
classmethod: System
_gcNow
	<primitive: 318>
	^ nil
%

category: 'session'
classmethod: System
beginTransaction
	^ true
%

category: 'session'
classmethod: System
continueTransaction
	^ true
%

category: 'session'
classmethod: System
transactionMode
	^ #autoBegin
%

category: 'session'
classmethod: System
myUserProfile: ignored
	^ self myUserProfile
%

category: 'writing'
method: TranscriptStream
show: arg1
	<primitive: 300>
	^ self
%

category: 'writing'
method: TranscriptStream
nextPutAll: arg1
	<primitive: 300>
	^ self
%

category: 'writing'
method: TranscriptStream
cr
	<primitive: 301>
	^ self
%

category: 'writing'
method: TranscriptStream
lf
	<primitive: 301>
	^ self
%

category: 'writing'
method: TranscriptStream
nl
	<primitive: 301>
	^ self
%

category: 'writing'
method: TranscriptStream
tab
	<primitive: 302>
	^ self
%

category: 'writing'
method: TranscriptStream
space
	<primitive: 303>
	^ self
%

category: 'writing'
method: TranscriptStream
contents
	<primitive: 304>
	^ ''
%

category: 'writing'
method: TranscriptStream
print: anObject
	^ self show: anObject printString
%

category: 'writing'
method: TranscriptStream
display: anObject
	^ self show: anObject displayString
%

category: 'writing'
method: TranscriptStream
showCr: aString
	^ self show: aString; cr
%

category: 'writing'
method: TranscriptStream
nextPut: aCharacter
	^ self show: aCharacter asString
%

category: 'printing'
method: TranscriptStream
printString
	^ 'a TranscriptStream'
%

category: 'timing'
classmethod: Time
millisecondClockValue
	<primitive: 317>
	^ 0
%

category: 'timing'
classmethod: Time
millisecondsToRun: aBlock
	| t |
	t := self millisecondClockValue.
	aBlock value.
	^ self millisecondClockValue - t
%

category: 'instance creation'
classmethod: Delay
forMilliseconds: anInteger
	^ self new _milliseconds: anInteger
%

category: 'instance creation'
classmethod: Delay
forSeconds: aNumber
	^ self new _milliseconds: (aNumber * 1000) truncated
%

category: 'private'
method: Delay
_milliseconds: anInteger
	milliseconds := anInteger
%

category: 'waiting'
method: Delay
wait
	^ self _sleep: milliseconds
%

category: 'private'
method: Object
_sleep: milliseconds
	<primitive: 341>
	^ ArgumentTypeError new signal: 'a Delay needs a non-negative SmallInteger of milliseconds'
%

category: 'accessing'
method: Object
_basicSize: anInteger
	<primitive: 29>
	^ self _primitiveFailed: #_basicSize:
%

category: 'halting'
method: Object
_halt
	<primitive: 340>
	^ self
%
