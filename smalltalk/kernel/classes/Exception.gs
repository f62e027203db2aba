! Exception: its comment, then its instance and class methods.

doit
Exception comment: 'The superclass of the ANSI exceptions: Error, Notification, Warning and the
control interrupts.'.
true
%
