! Integer: its comment, then its instance and class methods.

doit
Integer comment: 'The abstract superclass of the integers: exact arithmetic of any size, bit
operations, gcd:/lcm:, factorial, printing in a radix.'.
true
%

category: 'Bit Manipulation'
method: Integer
bitAnd: anInteger
	<primitive: 126>
	^ self _numberArgError: anInteger
%

category: 'Bit Manipulation'
method: Integer
bitOr: anInteger
	<primitive: 127>
	^ self _numberArgError: anInteger
%

category: 'Bit Manipulation'
method: Integer
bitXor: anInteger
	<primitive: 128>
	^ self _numberArgError: anInteger
%

category: 'Bit Manipulation'
method: Integer
bitShift: anInteger
	<primitive: 129>
	^ self _numberArgError: anInteger
%

category: 'Bit Manipulation'
method: Integer
highBit
	<primitive: 146>
	^ self _primitiveFailed: #highBit
%

category: 'Printing'
method: Integer
printStringRadix: radix
	^ radix printString, 'r', (self printString: radix)
%

category: 'Printing'
method: Integer
printString: radix
	<primitive: 123>
	^ ArgumentError new signal: 'radix must be between 2 and 36'
%

category: 'Arithmetic'
method: Integer
factorial
	<primitive: 132>
	^ ArgumentError new signal: 'factorial needs a non-negative integer'
%

category: 'Arithmetic'
method: Integer
even
	<primitive: 159>
	^ self _primitiveFailed: #even
%

category: 'Converting'
method: Integer
asCharacter
	<primitive: 147>
	^ OutOfRange new signal: 'not a valid code point: ', self printString
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
method: Integer
isInteger
	^ true
%

category: 'Flow of Control'
method: Integer
timesRepeat: aBlock
	| i |
	i := 1.
	[i <= self] whileTrue: [aBlock value. i := i + 1]
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
