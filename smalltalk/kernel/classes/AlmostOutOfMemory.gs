! AlmostOutOfMemory: its comment, then its instance and class methods.

doit
AlmostOutOfMemory comment: 'Signalled (error 3140) when an evaluation reaches the session''s object memory
budget. It is resumable: a handler may free objects and go on; allocating much
further past the budget ends the evaluation.'.
true
%

category: 'Error Numbers'
classmethod: AlmostOutOfMemory
_defaultNumber
	^ 3140
%
