! IllegalResumeAttempt: its comment, then its instance and class methods.

doit
IllegalResumeAttempt comment: 'Signalled (error 2008) when resume: is sent to an exception that is not
resumable.'.
true
%

category: 'Error Numbers'
classmethod: IllegalResumeAttempt
_defaultNumber
	^ 2008
%
