! Warning: its comment, then its instance and class methods.

doit
Warning comment: 'An exception that, unhandled, reports itself and answers nil so the
computation goes on.'.
true
%

category: 'Handling'
method: Warning
defaultAction
	"There is nobody to ask: an unhandled Warning resumes with nil."
	^ nil
%
