! Unicode16: its comment, then its instance and class methods.

doit
Unicode16 comment: 'A Unicode string whose characters all lie below U+10000, two bytes each.'.
true
%
