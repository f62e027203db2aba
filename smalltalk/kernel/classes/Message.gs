! Message: its comment, then its instance and class methods.

doit
Message comment: 'A selector and its arguments: what doesNotUnderstand: is given.'.
true
%

category: 'Accessing'
method: Message
selector
	^ selector
%

category: 'Accessing'
method: Message
arguments
	^ args
%

category: 'Accessing'
method: Message
args
	^ args
%

category: 'Accessing'
method: Message
selector: aSymbol arguments: anArray
	selector := aSymbol.
	args := anArray
%

category: 'Instance Creation'
classmethod: Message
selector: aSymbol arguments: anArray
	^ self new selector: aSymbol arguments: anArray
%
