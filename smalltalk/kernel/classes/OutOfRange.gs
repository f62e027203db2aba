! OutOfRange: its comment, then its instance and class methods.

doit
OutOfRange comment: 'Signalled (error 2061) when an index or argument lies outside the range the
receiver accepts.'.
true
%

category: 'Error Numbers'
classmethod: OutOfRange
_defaultNumber
	^ 2061
%
