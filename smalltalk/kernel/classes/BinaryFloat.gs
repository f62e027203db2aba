! BinaryFloat: its comment, then its instance and class methods.

doit
BinaryFloat comment: 'The abstract superclass of the binary floating-point numbers (IEEE 754
doubles).'.
true
%

category: 'Testing'
method: BinaryFloat
isNaN
	<primitive: 155>
	^ self _primitiveFailed: #isNaN
%

category: 'Testing'
method: BinaryFloat
isInfinite
	<primitive: 156>
	^ self _primitiveFailed: #isInfinite
%

category: 'Testing'
method: BinaryFloat
isFloat
	^ true
%

category: 'JSON'
method: BinaryFloat
printJsonOn: aStream
	(self isNaN or: [self isInfinite])
		ifTrue: [aStream nextPutAll: 'null']
		ifFalse: [aStream nextPutAll: self printString]
%
