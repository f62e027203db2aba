! GsTestCase: its comment, then its instance and class methods.

doit
GsTestCase comment: 'The superclass of the kernel''s own SUnit tests.'.
true
%
