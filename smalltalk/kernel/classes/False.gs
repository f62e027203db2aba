! False: its comment, then its instance and class methods.

doit
False comment: 'The class of false.'.
true
%

category: 'Printing'
method: False
printString
	^ 'false'
%

category: 'Logical Operations'
method: False
& aBoolean
	^ false
%

category: 'Logical Operations'
method: False
| aBoolean
	^ aBoolean
%

category: 'Logical Operations'
method: False
not
	^ true
%

category: 'Logical Operations'
method: False
xor: aBoolean
	^ aBoolean
%

category: 'Logical Operations'
method: False
and: aBlock
	^ false
%

category: 'Logical Operations'
method: False
or: aBlock
	^ aBlock value
%

category: 'Flow of Control'
method: False
ifTrue: trueBlock
	^ nil
%

category: 'Flow of Control'
method: False
ifFalse: falseBlock
	^ falseBlock value
%

category: 'Flow of Control'
method: False
ifTrue: trueBlock ifFalse: falseBlock
	^ falseBlock value
%

category: 'Flow of Control'
method: False
ifFalse: falseBlock ifTrue: trueBlock
	^ falseBlock value
%
