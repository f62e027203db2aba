! Boolean: its comment, then its instance and class methods.

doit
Boolean comment: 'The abstract superclass of true and false: the logical operations (&, |, and:,
or:, not, xor:) and the conditionals the compiler inlines.'.
true
%

category: 'Printing'
method: Boolean
printOn: aStream
	aStream nextPutAll: self printString
%

category: 'Testing'
method: Boolean
isBoolean
	^ true
%

category: 'Copying'
method: Boolean
shallowCopy
	^ self
%

category: 'JSON'
method: Boolean
printJsonOn: aStream
	aStream nextPutAll: self printString
%
