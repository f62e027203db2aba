! UnorderedCollection: its comment, then its instance and class methods.

doit
UnorderedCollection comment: 'The abstract superclass of the collections without an order: Set, Bag and
their kind.'.
true
%
