! Error: its comment, then its instance and class methods.

doit
Error comment: 'The superclass of the exceptions that stop a computation when nothing handles
them: unhandled, the evaluation ends and its caller gets the error.'.
true
%

category: 'Testing'
method: Error
isResumable
	^ false
%
