! Number: its comment, then its instance and class methods.

doit
Number comment: 'The abstract superclass of the numbers: arithmetic with generality (an
operation on two kinds of number answers the more general kind), comparison,
rounding and truncating, and the mathematical functions.'.
true
%

category: 'Arithmetic'
method: Number
+ aNumber
	<primitive: 100>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
- aNumber
	<primitive: 101>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
* aNumber
	<primitive: 102>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
/ aNumber
	<primitive: 103>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
// aNumber
	<primitive: 104>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
\\ aNumber
	<primitive: 105>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
quo: aNumber
	<primitive: 106>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
rem: aNumber
	<primitive: 107>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
gcd: aNumber
	<primitive: 124>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
lcm: aNumber
	<primitive: 125>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
raisedTo: aNumber
	<primitive: 131>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
roundTo: aNumber
	<primitive: 151>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
truncateTo: aNumber
	<primitive: 152>
	^ self _numberArgError: aNumber
%

category: 'Arithmetic'
method: Number
log: aNumber
	<primitive: 143>
	^ self _numberArgError: aNumber
%

category: 'Comparing'
method: Number
< aNumber
	<primitive: 108>
	^ self _numberArgError: aNumber
%

category: 'Comparing'
method: Number
> aNumber
	<primitive: 109>
	^ self _numberArgError: aNumber
%

category: 'Comparing'
method: Number
<= aNumber
	<primitive: 110>
	^ self _numberArgError: aNumber
%

category: 'Comparing'
method: Number
>= aNumber
	<primitive: 111>
	^ self _numberArgError: aNumber
%

category: 'Comparing'
method: Number
= anObject
	<primitive: 112>
	^ false
%

category: 'Comparing'
method: Number
~= anObject
	<primitive: 113>
	^ true
%

category: 'Comparing'
method: Number
hash
	<primitive: 114>
	^ 0
%

category: 'Arithmetic'
method: Number
negated
	<primitive: 115>
	^ self _primitiveFailed: #negated
%

category: 'Arithmetic'
method: Number
abs
	<primitive: 116>
	^ self _primitiveFailed: #abs
%

category: 'Arithmetic'
method: Number
asFloat
	<primitive: 117>
	^ self _primitiveFailed: #asFloat
%

category: 'Arithmetic'
method: Number
truncated
	<primitive: 118>
	^ self _primitiveFailed: #truncated
%

category: 'Arithmetic'
method: Number
rounded
	<primitive: 119>
	^ self _primitiveFailed: #rounded
%

category: 'Arithmetic'
method: Number
floor
	<primitive: 120>
	^ self _primitiveFailed: #floor
%

category: 'Arithmetic'
method: Number
ceiling
	<primitive: 121>
	^ self _primitiveFailed: #ceiling
%

category: 'Arithmetic'
method: Number
sqrt
	<primitive: 130>
	^ self _primitiveFailed: #sqrt
%

category: 'Arithmetic'
method: Number
asFraction
	<primitive: 133>
	^ self _primitiveFailed: #asFraction
%

category: 'Arithmetic'
method: Number
asExactFraction
	<primitive: 133>
	^ self _primitiveFailed: #asExactFraction
%

category: 'Arithmetic'
method: Number
numerator
	<primitive: 135>
	^ self _primitiveFailed: #numerator
%

category: 'Arithmetic'
method: Number
denominator
	<primitive: 136>
	^ self _primitiveFailed: #denominator
%

category: 'Arithmetic'
method: Number
ln
	<primitive: 137>
	^ self _primitiveFailed: #ln
%

category: 'Arithmetic'
method: Number
exp
	<primitive: 138>
	^ self _primitiveFailed: #exp
%

category: 'Arithmetic'
method: Number
sin
	<primitive: 139>
	^ self _primitiveFailed: #sin
%

category: 'Arithmetic'
method: Number
cos
	<primitive: 140>
	^ self _primitiveFailed: #cos
%

category: 'Arithmetic'
method: Number
tan
	<primitive: 141>
	^ self _primitiveFailed: #tan
%

category: 'Arithmetic'
method: Number
arcTan
	<primitive: 142>
	^ self _primitiveFailed: #arcTan
%

category: 'Arithmetic'
method: Number
isZero
	<primitive: 144>
	^ self _primitiveFailed: #isZero
%

category: 'Arithmetic'
method: Number
sign
	<primitive: 145>
	^ self _primitiveFailed: #sign
%

category: 'Arithmetic'
method: Number
asInteger
	<primitive: 149>
	^ self _primitiveFailed: #asInteger
%

category: 'Arithmetic'
method: Number
fractionPart
	<primitive: 153>
	^ self _primitiveFailed: #fractionPart
%

category: 'Arithmetic'
method: Number
integerPart
	<primitive: 154>
	^ self _primitiveFailed: #integerPart
%

category: 'Arithmetic'
method: Number
negative
	<primitive: 157>
	^ self _primitiveFailed: #negative
%

category: 'Arithmetic'
method: Number
squared
	<primitive: 158>
	^ self _primitiveFailed: #squared
%

category: 'Printing'
method: Number
printString
	<primitive: 122>
	^ super printString
%

category: 'Printing'
method: Number
_basicPrintString
	<primitive: 122>
	^ super printString
%

category: 'Converting'
method: Number
asScaledDecimal: scale
	<primitive: 134>
	^ self _primitiveFailed: #asScaledDecimal:
%

category: 'Private'
method: Number
_numberArgError: anArg
	^ ArgumentTypeError new signal: anArg _basicPrintString, ' is not a Number'
%

category: 'Testing'
method: Number
even
	^ (self \\ 2) = 0
%

category: 'Testing'
method: Number
isNaN
	^ false
%

category: 'Testing'
method: Number
isInfinite
	^ false
%

category: 'Comparing'
method: Number
between: min and: max
	^ self >= min and: [self <= max]
%

category: 'Comparing'
method: Number
max: aNumber
	<primitive: 418>
	^ self > aNumber ifTrue: [self] ifFalse: [aNumber]
%

category: 'Comparing'
method: Number
min: aNumber
	<primitive: 419>
	^ self < aNumber ifTrue: [self] ifFalse: [aNumber]
%

category: 'Converting'
method: Number
asNumber
	^ self
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

category: 'Testing'
method: Number
isNumber
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

category: 'Arithmetic'
method: Number
reciprocal
	^ 1 / self
%

category: 'JSON'
method: Number
printJsonOn: aStream
	aStream nextPutAll: self printString
%
