! TestFailure: its comment, then its instance and class methods.

doit
TestFailure comment: 'Signalled when an SUnit assertion fails.'.
true
%
