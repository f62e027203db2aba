! String: its comment, then its instance and class methods.

doit
String comment: 'A sequence of characters below U+0100, one byte each; it becomes a
DoubleByteString or a QuadByteString in place when a wider character is stored
into it.'.
true
%

category: 'Private'
method: String
species
	^ self class
%

category: 'Instance Creation'
classmethod: String
new: anInteger withAll: aCharacter
	<primitive: 234>
	^ ArgumentTypeError new signal: 'new:withAll: needs a size and a Character'
%
