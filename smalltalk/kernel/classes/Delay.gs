! Delay: its comment, then its instance and class methods.

doit
Delay comment: 'Waits a number of milliseconds (forMilliseconds:, forSeconds:, wait).'.
true
%

category: 'Private'
method: Delay
_milliseconds: anInteger
	milliseconds := anInteger
%

category: 'Waiting'
method: Delay
wait
	^ self _sleep: milliseconds
%

category: 'Instance Creation'
classmethod: Delay
forMilliseconds: anInteger
	^ self new _milliseconds: anInteger
%

category: 'Instance Creation'
classmethod: Delay
forSeconds: aNumber
	^ self new _milliseconds: (aNumber * 1000) truncated
%
