! Break: its comment, then its instance and class methods.

doit
Break comment: 'Signalled (error 6003) when the session is interrupted by a soft break from
outside; a hard break (6004) ends the evaluation without a signal.'.
true
%

category: 'Error Numbers'
classmethod: Break
_defaultNumber
	^ 6003
%
