! CompileWarning: its comment, then its instance and class methods.

doit
CompileWarning comment: 'A warning a compilation raises without failing (an unused temporary, a
shadowed name).'.
true
%
