! Time: its comment, then its instance and class methods.

doit
Time comment: 'The time of day, and the millisecond clock (millisecondClockValue,
millisecondsToRun:).'.
true
%

category: 'Timing'
classmethod: Time
millisecondClockValue
	<primitive: 317>
	^ 0
%

category: 'Timing'
classmethod: Time
millisecondsToRun: aBlock
	| t |
	t := self millisecondClockValue.
	aBlock value.
	^ self millisecondClockValue - t
%
