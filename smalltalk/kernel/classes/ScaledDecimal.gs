! ScaledDecimal: its comment, then its instance and class methods.

doit
ScaledDecimal comment: 'An exact decimal number with a scale: the number of digits it prints after the
point.'.
true
%

category: 'Accessing'
method: ScaledDecimal
scale
	<primitive: 150>
	^ self _primitiveFailed: #scale
%
