! The exception protocol that is not VM machinery: creation, messageText/description defaults, error numbers, resumability, default actions, ExceptionSet, and the Transcript's Smalltalk protocol.

category: 'Instance creation'
classmethod: AbstractException
new
	^ self basicNew _initializeDefaults
%

category: 'Instance creation'
classmethod: AbstractException
signal
	^ self new signal
%

category: 'Instance creation'
classmethod: AbstractException
signal: aString
	^ self new signal: aString
%

category: 'Exception selection'
classmethod: AbstractException
handles: anException
	^ anException isKindOf: self
%

category: 'Exception selection'
classmethod: AbstractException
, anExceptionClassOrSet
	^ ExceptionSet new _setExceptions: (Array with: self with: anExceptionClassOrSet)
%

category: 'Error numbers'
classmethod: AbstractException
_defaultNumber
	"The GemStone error number of instances signalled from Smalltalk."
	^ 2318
%

category: 'Error numbers'
classmethod: ZeroDivide
_defaultNumber
	^ 2026
%

category: 'Error numbers'
classmethod: MessageNotUnderstood
_defaultNumber
	^ 2010
%

category: 'Error numbers'
classmethod: CompileError
_defaultNumber
	^ 1001
%

category: 'Error numbers'
classmethod: ImproperOperation
_defaultNumber
	^ 2717
%

category: 'Error numbers'
classmethod: ArgumentError
_defaultNumber
	^ 2718
%

category: 'Error numbers'
classmethod: ArgumentTypeError
_defaultNumber
	^ 2094
%

category: 'Error numbers'
classmethod: OutOfRange
_defaultNumber
	^ 2061
%

category: 'Error numbers'
classmethod: CannotReturn
_defaultNumber
	^ 2011
%

category: 'Error numbers'
classmethod: IllegalResumeAttempt
_defaultNumber
	^ 2008
%

category: 'Error numbers'
classmethod: LookupError
_defaultNumber
	^ 2023
%

category: 'Error numbers'
classmethod: TransactionError
_defaultNumber
	^ 2409
%

category: 'Error numbers'
classmethod: AlmostOutOfStack
_defaultNumber
	^ 3139
%

category: 'Error numbers'
classmethod: AlmostOutOfMemory
_defaultNumber
	^ 3140
%

category: 'Error numbers'
classmethod: Break
_defaultNumber
	^ 6003
%

category: 'Error numbers'
classmethod: Halt
_defaultNumber
	^ 2709
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
	"GemStone's form: an Error occurred (error 2318), then the messageText, or the detail of an error the VM raised."
	| detail text |
	text := self _articleName , ' occurred (error ' , self number printString , ')'.
	detail := messageText == nil ifTrue: [self _detailText] ifFalse: [messageText asString].
	(detail == nil or: [detail isEmpty]) ifTrue: [^ text].
	^ text , ', ' , detail
%

category: 'Private'
method: AbstractException
_articleName
	"a ZeroDivide, an Error: the article and class name separated by a space, as GemStone's descriptions read."
	| className |
	className := self class name.
	^ ((className at: 1) isVowel ifTrue: ['an '] ifFalse: ['a ']) , className
%

category: 'Private'
method: AbstractException
_detailText
	"The VM's detail text for errors it raises itself (kept in gsDetails), or nil."
	^ (gsDetails ~~ nil and: [gsDetails isString]) ifTrue: [gsDetails] ifFalse: [nil]
%

category: 'Private'
method: MessageNotUnderstood
_detailText
	"a SmallInteger does not understand  #'foo' (two spaces and a quoted selector, as GemStone writes it)."
	| className |
	message == nil ifTrue: [^ super _detailText].
	className := receiver class name.
	^ ((className at: 1) isVowel ifTrue: ['an '] ifFalse: ['a ']) , className ,
		' does not understand  #''' , message selector , ''''
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

category: 'Accessing'
method: CompileError
errorDetails
	"An Array of {number. offset. text. nil. symbol} tuples, one per error."
	^ (gsArgs ~~ nil and: [gsArgs size > 0]) ifTrue: [gsArgs at: 1] ifFalse: [#()]
%

category: 'Testing'
method: AbstractException
isResumable
	^ true
%

category: 'Testing'
method: Error
isResumable
	^ false
%

category: 'Testing'
method: ArithmeticError
isResumable
	^ true
%

category: 'Testing'
method: MessageNotUnderstood
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

category: 'Handling'
method: Notification
defaultAction
	"Unhandled notifications resume with nil."
	^ nil
%

category: 'Handling'
method: Warning
defaultAction
	"There is nobody to ask: an unhandled Warning resumes with nil."
	^ nil
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

! ---------------------------------------------------------------- ExceptionSet

category: 'Private'
method: ExceptionSet
_setExceptions: anArray
	exceptions := anArray
%

category: 'Accessing'
method: ExceptionSet
exceptions
	^ exceptions
%

category: 'Exception selection'
method: ExceptionSet
handles: anException
	exceptions do: [:each | (each handles: anException) ifTrue: [^ true]].
	^ false
%

category: 'Exception selection'
method: ExceptionSet
, anExceptionClassOrSet
	^ ExceptionSet new _setExceptions: (exceptions copyWith: anExceptionClassOrSet)
%

! ------------------------------------------------------------------ Transcript

category: 'Writing'
method: TranscriptStream
show: anObject
	^ self nextPutAll: (anObject isString ifTrue: [anObject] ifFalse: [anObject displayString])
%

category: 'Writing'
method: TranscriptStream
print: anObject
	^ self nextPutAll: anObject printString
%

category: 'Writing'
method: TranscriptStream
display: anObject
	^ self nextPutAll: anObject displayString
%

category: 'Writing'
method: TranscriptStream
showCr: aString
	self show: aString; cr
%

category: 'Writing'
method: TranscriptStream
<< anObject
	^ self show: anObject
%

category: 'Writing'
method: TranscriptStream
nl
	^ self cr
%

category: 'Writing'
method: TranscriptStream
lf
	^ self cr
%

category: 'Writing'
method: TranscriptStream
tab: anInteger
	anInteger timesRepeat: [self tab]
%

category: 'Writing'
method: TranscriptStream
space: anInteger
	anInteger timesRepeat: [self space]
%

category: 'Writing'
method: TranscriptStream
nextPut: aCharacter
	^ self nextPutAll: (String with: aCharacter)
%

! ------------------------------------------------------------------ GsProcess

category: 'Debugging Support'
classmethod: GsProcess
stackReportToLevel: aLevel
	"The running activations, innermost first, at most aLevel lines of
	 'Receiver (Implementor) >> selector @step line n'."
	<primitive: 287>
	^ ArgumentError new signal: 'stackReportToLevel: needs a non-negative SmallInteger'
%
