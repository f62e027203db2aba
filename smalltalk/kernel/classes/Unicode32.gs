! Unicode32: its comment, then its instance and class methods.

doit
Unicode32 comment: 'A Unicode string of any code points, four bytes each.'.
true
%
