! UndefinedObject: its comment, then its instance and class methods.

doit
UndefinedObject comment: 'The class of nil: the value of every variable not yet assigned, and of a
method that answers nothing.'.
true
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

category: 'Nil Testing'
method: UndefinedObject
ifNil: aBlock
	^ aBlock value
%

category: 'Nil Testing'
method: UndefinedObject
ifNotNil: aBlock
	^ nil
%

category: 'Nil Testing'
method: UndefinedObject
ifNil: nilBlock ifNotNil: notNilBlock
	^ nilBlock value
%

category: 'Nil Testing'
method: UndefinedObject
ifNotNil: notNilBlock ifNil: nilBlock
	^ nilBlock value
%

category: 'Copying'
method: UndefinedObject
shallowCopy
	^ self
%

category: 'JSON'
method: UndefinedObject
printJsonOn: aStream
	aStream nextPutAll: 'null'
%
