! ControlInterrupt: its comment, then its instance and class methods.

doit
ControlInterrupt comment: 'The superclass of the interrupts that come from outside the evaluation (Break,
Halt).'.
true
%
