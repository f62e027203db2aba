! Metaclass: its comment, then its instance and class methods.

doit
Metaclass comment: 'The class of a class: it holds the class-side methods and class-instance
variables of one class.'.
true
%

category: 'Testing'
method: Metaclass
isMeta
	^ true
%

category: 'Accessing'
method: Metaclass
name
	^ self theNonMetaClass name
%

category: 'Printing'
method: Metaclass
printString
	^ self theNonMetaClass name, ' class'
%

category: 'Printing'
method: Metaclass
printOn: aStream
	aStream nextPutAll: self thisClass name; nextPutAll: ' class'
%
