! Halt: its comment, then its instance and class methods.

doit
Halt comment: 'Signalled (error 2709) by halt: an interrupt that stops the evaluation for
inspection.'.
true
%

category: 'Error Numbers'
classmethod: Halt
_defaultNumber
	^ 2709
%
