! Fraction: its comment, then its instance and class methods.

doit
Fraction comment: 'An exact ratio of two integers, kept in lowest terms with a positive
denominator; an integral result becomes an Integer.'.
true
%
