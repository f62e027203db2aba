! AbstractException: its comment, then its instance and class methods.

doit
AbstractException comment: 'The root of the exception hierarchy: an object that is signalled, searched for
a handler on the handler stack, and then returned from, retried, resumed,
passed or resignalled. It carries a message text, a GemStone error number and
the stack report taken when it was signalled.'.
true
%

category: 'Signaling'
method: AbstractException
signal
	<primitive: 270>
	^ nil
%

category: 'Handling'
method: AbstractException
return: returnValue
	<primitive: 272>
	^ nil
%

category: 'Handling'
method: AbstractException
retry
	<primitive: 273>
	^ nil
%

category: 'Handling'
method: AbstractException
retryUsing: aBlock
	<primitive: 274>
	^ nil
%

category: 'Handling'
method: AbstractException
pass
	<primitive: 275>
	^ nil
%

category: 'Handling'
method: AbstractException
outer
	<primitive: 276>
	^ nil
%

category: 'Handling'
method: AbstractException
resume: resumptionValue
	<primitive: 277>
	^ nil
%

category: 'Handling'
method: AbstractException
resignalAs: replacement
	<primitive: 278>
	^ nil
%

category: 'Handling'
method: AbstractException
isNested
	<primitive: 279>
	^ false
%

category: 'Handling'
method: AbstractException
_unhandled
	<primitive: 280>
	^ nil
%

category: 'Handling'
method: AbstractException
_description
	<primitive: 285>
	^ 'an exception'
%

category: 'Accessing'
method: AbstractException
stackReport
	"The activations running when the receiver was last signalled, innermost
	 first, one line each; nil if it was never signalled."
	<primitive: 286>
	^ nil
%

category: 'Handling'
method: AbstractException
signal: aString with: ignored
	^ self signal: aString
%

category: 'Accessing'
method: AbstractException
gsNumber
	^ gsNumber
%

category: 'Accessing'
method: AbstractException
details
	^ gsDetails
%

category: 'Printing'
method: AbstractException
printString
	^ self _printStringFromPrintOn
%

category: 'Private'
method: AbstractException
_initializeDefaults
	"The VM numbers instances of its own exception classes in basicNew; other classes get theirs here."
	gsNumber == nil ifTrue: [gsNumber := self class _defaultNumber].
	gsResumable := self isResumable
%

category: 'Accessing'
method: AbstractException
number
	^ gsNumber == nil ifTrue: [self class _defaultNumber] ifFalse: [gsNumber]
%

category: 'Accessing'
method: AbstractException
messageText
	"The text given when signalled; nil when none was (as for most kernel errors)."
	^ messageText
%

category: 'Accessing'
method: AbstractException
messageText: aString
	messageText := aString
%

category: 'Accessing'
method: AbstractException
gsArguments
	^ gsArgs
%

category: 'Accessing'
method: AbstractException
args
	^ gsArgs
%

category: 'Accessing'
method: AbstractException
tag
	^ tag == nil ifTrue: [self messageText] ifFalse: [tag]
%

category: 'Accessing'
method: AbstractException
tag: anObject
	tag := anObject
%

category: 'Accessing'
method: AbstractException
description
	"GemStone's form: a Error occurred (error 2318), then the messageText, or the detail of an error the VM raised."
	| detail text |
	text := self _articleName , ' occurred (error ' , self number printString , ')'.
	detail := messageText == nil ifTrue: [self _detailText] ifFalse: [messageText asString].
	(detail == nil or: [detail isEmpty]) ifTrue: [^ text].
	^ text , ', ' , detail
%

category: 'Private'
method: AbstractException
_articleName
	"a ZeroDivide, a Error: GemStone's descriptions put a before every class name (a Error occurred,
	 a ImproperOperation occurred, a UserDefinedError occurred)."
	^ 'a ' , self class name
%

category: 'Private'
method: AbstractException
_detailText
	"The VM's detail text for errors it raises itself (kept in gsDetails), or nil."
	^ (gsDetails ~~ nil and: [gsDetails isString]) ifTrue: [gsDetails] ifFalse: [nil]
%

category: 'Testing'
method: AbstractException
isResumable
	^ true
%

category: 'Testing'
method: AbstractException
isException
	^ true
%

category: 'Handling'
method: AbstractException
resume
	^ self resume: nil
%

category: 'Handling'
method: AbstractException
return
	^ self return: nil
%

category: 'Handling'
method: AbstractException
signal: aString
	messageText := aString.
	^ self signal
%

category: 'Handling'
method: AbstractException
defaultAction
	"Unhandled: the evaluation ends with this exception as its error."
	^ self _unhandled
%

category: 'Printing'
method: AbstractException
printOn: aStream
	aStream nextPutAll: self describeClassName
%

category: 'Printing'
method: AbstractException
messageTextOrDescription
	^ messageText == nil ifTrue: [self description] ifFalse: [messageText]
%

category: 'Testing'
classmethod: AbstractException
isExceptionClass
	^ true
%

category: 'Instance Creation'
classmethod: AbstractException
new
	^ self basicNew _initializeDefaults
%

category: 'Instance Creation'
classmethod: AbstractException
signal
	^ self new signal
%

category: 'Instance Creation'
classmethod: AbstractException
signal: aString
	^ self new signal: aString
%

category: 'Exception Selection'
classmethod: AbstractException
handles: anException
	^ anException isKindOf: self
%

category: 'Exception Selection'
classmethod: AbstractException
, anExceptionClassOrSet
	^ ExceptionSet new _setExceptions: (Array with: self with: anExceptionClassOrSet)
%

category: 'Error Numbers'
classmethod: AbstractException
_defaultNumber
	"The GemStone error number of instances signalled from Smalltalk."
	^ 2318
%
