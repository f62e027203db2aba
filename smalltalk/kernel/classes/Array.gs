! Array: its comment, then its instance and class methods.

doit
Array comment: 'A fixed-size sequence of objects indexed from 1. Literal arrays (#(...)) and
brace arrays ({...}) are Arrays.'.
true
%

category: 'Printing'
method: Array
printString
	^ self _printStringFromPrintOn
%

category: 'Testing'
method: Array
isArray
	^ true
%

category: 'Adding'
method: Array
add: anObject
	^ self addLast: anObject
%

category: 'Adding'
method: Array
addLast: anObject
	| n |
	n := self size + 1.
	self _basicSize: n.
	^ self at: n put: anObject
%

category: 'Adding'
method: Array
insertObject: anObject at: anIndex
	| n |
	n := self size.
	(anIndex isInteger and: [anIndex between: 1 and: n + 1])
		ifFalse: [^ self _errorIndexOutOfRange: anIndex].
	self _basicSize: n + 1.
	n to: anIndex by: -1 do: [:i | self at: i + 1 put: (self at: i)].
	^ self at: anIndex put: anObject
%

category: 'Removing'
method: Array
removeIndex: anIndex
	| n element |
	n := self size.
	(anIndex isInteger and: [anIndex between: 1 and: n])
		ifFalse: [^ self _errorIndexOutOfRange: anIndex].
	element := self at: anIndex.
	anIndex to: n - 1 do: [:i | self at: i put: (self at: i + 1)].
	self _basicSize: n - 1.
	^ element
%

category: 'Removing'
method: Array
remove: anObject ifAbsent: aBlock
	| index |
	index := self indexOf: anObject.
	index = 0 ifTrue: [^ aBlock value].
	self removeIndex: index.
	^ anObject
%
