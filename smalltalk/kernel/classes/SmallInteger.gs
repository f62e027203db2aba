! SmallInteger: its comment, then its instance and class methods.

doit
SmallInteger comment: 'An integer that fits an immediate object (-2^60 .. 2^60-1); arithmetic that
overflows answers a LargeInteger.'.
true
%

category: 'Constants'
classmethod: SmallInteger
maximumValue
	"The largest SmallInteger, 2^60 - 1."
	^ 1152921504606846975
%

category: 'Constants'
classmethod: SmallInteger
minimumValue
	"The smallest SmallInteger, -2^60."
	^ -1152921504606846976
%
