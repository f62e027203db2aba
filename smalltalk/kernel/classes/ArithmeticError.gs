! ArithmeticError: its comment, then its instance and class methods.

doit
ArithmeticError comment: 'The superclass of the errors arithmetic signals.'.
true
%

category: 'Testing'
method: ArithmeticError
isResumable
	^ true
%
