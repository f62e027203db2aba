! Magnitude: its comment, then its instance and class methods.

doit
Magnitude comment: 'The abstract superclass of the objects that compare in a linear order: <, >,
<=, >=, between:and:, max:, min:.'.
true
%

category: 'Comparing'
method: Magnitude
between: min and: max
	^ self >= min and: [self <= max]
%

category: 'Comparing'
method: Magnitude
max: aMagnitude
	^ self > aMagnitude ifTrue: [self] ifFalse: [aMagnitude]
%

category: 'Comparing'
method: Magnitude
min: aMagnitude
	^ self < aMagnitude ifTrue: [self] ifFalse: [aMagnitude]
%

category: 'Comparing'
method: Magnitude
> aMagnitude
	^ aMagnitude < self
%

category: 'Comparing'
method: Magnitude
<= aMagnitude
	^ (aMagnitude < self) not
%

category: 'Comparing'
method: Magnitude
>= aMagnitude
	^ (self < aMagnitude) not
%
