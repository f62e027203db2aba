! Unicode7: its comment, then its instance and class methods.

doit
Unicode7 comment: 'A Unicode string whose characters are all ASCII, one byte each.'.
true
%
