! True: its comment, then its instance and class methods.

doit
True comment: 'The class of true.'.
true
%

category: 'Printing'
method: True
printString
	^ 'true'
%

category: 'Logical Operations'
method: True
& aBoolean
	^ aBoolean
%

category: 'Logical Operations'
method: True
| aBoolean
	^ true
%

category: 'Logical Operations'
method: True
not
	^ false
%

category: 'Logical Operations'
method: True
xor: aBoolean
	^ aBoolean not
%

category: 'Logical Operations'
method: True
and: aBlock
	^ aBlock value
%

category: 'Logical Operations'
method: True
or: aBlock
	^ true
%

category: 'Flow of Control'
method: True
ifTrue: trueBlock
	^ trueBlock value
%

category: 'Flow of Control'
method: True
ifFalse: falseBlock
	^ nil
%

category: 'Flow of Control'
method: True
ifTrue: trueBlock ifFalse: falseBlock
	^ trueBlock value
%

category: 'Flow of Control'
method: True
ifFalse: falseBlock ifTrue: trueBlock
	^ trueBlock value
%
