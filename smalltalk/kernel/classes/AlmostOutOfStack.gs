! AlmostOutOfStack: its comment, then its instance and class methods.

doit
AlmostOutOfStack comment: 'Signalled (error 3139) when an evaluation''s activations come near the depth
limit or the native stack runs low. A handler runs with some headroom; going
deeper still ends the evaluation.'.
true
%

category: 'Error Numbers'
classmethod: AlmostOutOfStack
_defaultNumber
	^ 3139
%
