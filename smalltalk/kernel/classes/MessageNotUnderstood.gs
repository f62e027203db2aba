! MessageNotUnderstood: its comment, then its instance and class methods.

doit
MessageNotUnderstood comment: 'Signalled (error 2010) when the receiver has no method for a message; the
message and the receiver travel with it.'.
true
%

category: 'Accessing'
method: MessageNotUnderstood
_receiver: anObject message: aMessage
	receiver := anObject.
	message := aMessage
%

category: 'Private'
method: MessageNotUnderstood
_detailText
	"a SmallInteger does not understand  #'foo' (a before every class name, two spaces and a quoted
	 selector, as GemStone writes it: a UndefinedObject does not understand  #'project'); for a
	 class, a SmallInteger class does not understand  #'foo'."
	| behavior |
	message == nil ifTrue: [^ super _detailText].
	behavior := receiver class.
	^ 'a ' , (behavior isMeta ifTrue: [behavior thisClass name , ' class'] ifFalse: [behavior name])
		, ' does not understand  #''' , message selector , ''''
%

category: 'Accessing'
method: MessageNotUnderstood
receiver
	^ receiver
%

category: 'Accessing'
method: MessageNotUnderstood
message
	^ message
%

category: 'Accessing'
method: MessageNotUnderstood
selector
	^ message == nil ifTrue: [nil] ifFalse: [message selector]
%

category: 'Accessing'
method: MessageNotUnderstood
_setReceiver: anObject message: aMessage
	receiver := anObject.
	message := aMessage
%

category: 'Testing'
method: MessageNotUnderstood
isResumable
	^ true
%

category: 'Error Numbers'
classmethod: MessageNotUnderstood
_defaultNumber
	^ 2010
%
