! SessionTemps: its comment, then its instance and class methods.

doit
SessionTemps comment: 'The session''s own dictionary of temporary globals, never committed:
SessionTemps current.'.
true
%

category: 'Accessing'
classmethod: SessionTemps
current
	<primitive: 319>
	^ nil
%
