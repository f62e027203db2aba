! SymbolAssociation: its comment, then its instance and class methods.

doit
SymbolAssociation comment: 'An association whose key is a symbol: the binding of a global in a
SymbolDictionary.'.
true
%
