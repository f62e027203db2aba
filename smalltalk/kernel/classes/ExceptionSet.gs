! ExceptionSet: its comment, then its instance and class methods.

doit
ExceptionSet comment: 'Several exception classes handled by one handler: ZeroDivide,
MessageNotUnderstood makes one.'.
true
%

category: 'Private'
method: ExceptionSet
_exceptions: anArray
	exceptions := anArray
%

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

category: 'Exception Selection'
method: ExceptionSet
handles: anException
	exceptions do: [:each | (each handles: anException) ifTrue: [^ true]].
	^ false
%

category: 'Exception Selection'
method: ExceptionSet
, anExceptionClassOrSet
	^ ExceptionSet new _setExceptions: (exceptions copyWith: anExceptionClassOrSet)
%
