! MultiByteString: its comment, then its instance and class methods.

doit
MultiByteString comment: 'The abstract superclass of the strings whose characters take more than one
byte.'.
true
%

category: 'Private'
method: MultiByteString
species
	^ self class
%

category: 'Instance Creation'
classmethod: MultiByteString
new: anInteger withAll: aCharacter
	<primitive: 234>
	^ ArgumentTypeError new signal: 'new:withAll: needs a size and a Character'
%
