! Stream: its comment, then its instance and class methods.

doit
Stream comment: 'The abstract superclass of the streams: sequential access to a collection''s
elements.'.
true
%
