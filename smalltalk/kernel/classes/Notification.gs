! Notification: its comment, then its instance and class methods.

doit
Notification comment: 'An exception that answers nil and lets the computation go on when nothing
handles it.'.
true
%

category: 'Handling'
method: Notification
defaultAction
	"Unhandled notifications resume with nil."
	^ nil
%
