//! Evaluation tests for the embedded stone: tables of `expression → printString`
//! and of expressions that must fail with a given GemStone error, run against a
//! real bootstrapped session.

use gsmcp_smalltalk::{ErrorKind, Session, StError};

fn session() -> Session {
    match Session::bootstrap() {
        Ok(s) => s,
        Err(e) => panic!("bootstrap failed: {e:?}"),
    }
}

/// Evaluates every `(source, expected printString)` and reports all mismatches at once.
fn check(s: &mut Session, table: &[(&str, &str)]) {
    let mut bad = Vec::new();
    for (src, want) in table {
        match s.evaluate_print_string(src) {
            Ok(got) if got == *want => {}
            other => bad.push(format!("{src}\n    want {want}\n    got  {other:?}")),
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} failed:\n{}",
        bad.len(),
        table.len(),
        bad.join("\n")
    );
}

/// Evaluates every `(source, error number, class name)` expecting that failure.
fn check_err(s: &mut Session, table: &[(&str, u32, &str)]) {
    let mut bad = Vec::new();
    for (src, num, class) in table {
        match s.evaluate_print_string(src) {
            Err(StError {
                number,
                ref class_name,
                ..
            }) if number == *num && class_name == class => {}
            other => bad.push(format!(
                "{src}\n    want error {num} {class}\n    got  {other:?}"
            )),
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} failed:\n{}",
        bad.len(),
        table.len(),
        bad.join("\n")
    );
}

#[test]
fn integer_arithmetic_and_large_integers() {
    let mut s = session();
    check(
        &mut s,
        &[
            ("3 + 4", "7"),
            ("3 - 10", "-7"),
            ("6 * 7", "42"),
            ("7 // 2", "3"),
            ("-7 // 2", "-4"),
            ("-7 \\\\ 2", "1"),
            ("7 \\\\ -2", "-1"),
            ("-7 rem: 2", "-1"),
            ("-7 quo: 2", "-3"),
            ("1152921504606846975 class", "SmallInteger"),
            ("(1152921504606846975 + 1) class", "LargePositiveInteger"),
            ("1152921504606846975 + 1", "1152921504606846976"),
            ("-1152921504606846976 class", "SmallInteger"),
            ("(-1152921504606846976 - 1) class", "LargeNegativeInteger"),
            ("((2 raisedTo: 60) - 1) class", "SmallInteger"),
            ("(2 raisedTo: 60) class", "LargePositiveInteger"),
            (
                "(1152921504606846975 * 1152921504606846975) printString size",
                "37",
            ),
            ("100 factorial / 98 factorial", "9900"),
            ("(100 factorial / 98 factorial) class", "SmallInteger"),
            ("2 raisedTo: 100", "1267650600228229401496703205376"),
            ("(2 raisedTo: 64) printString: 16", "'10000000000000000'"),
            ("255 printString: 16", "'FF'"),
            ("255 printStringRadix: 16", "'16rFF'"),
            ("16rFF", "255"),
            ("-16rFF", "-255"),
            ("16r-FF", "-255"),
            ("2r1010", "10"),
            ("36rZZ", "1295"),
            ("1e3", "1000"),
            ("17 gcd: 5", "1"),
            ("12 lcm: 8", "24"),
            ("5 bitAnd: 3", "1"),
            ("5 bitOr: 3", "7"),
            ("5 bitXor: 3", "6"),
            ("1 bitShift: 70", "1180591620717411303424"),
            ("(1 bitShift: 70) bitShift: -70", "1"),
            ("3 max: 9", "9"),
            ("3 min: 9", "3"),
            ("5 between: 1 and: 10", "true"),
            ("7 even", "false"),
            ("7 odd", "true"),
            ("-5 abs", "5"),
            ("5 negated", "-5"),
            ("0 isZero", "true"),
            ("100 sqrt", "10"),
            ("9 squared", "81"),
            ("20 factorial", "2432902008176640000"),
            ("3 = 3", "true"),
            ("3 ~= 4", "true"),
            ("3 < 4", "true"),
            ("(2 raisedTo: 70) > (2 raisedTo: 69)", "true"),
            ("(2 raisedTo: 70) = (2 raisedTo: 70)", "true"),
            ("(2 raisedTo: 70) - (2 raisedTo: 70)", "0"),
        ],
    );
}

#[test]
fn fractions_floats_scaled_decimals() {
    let mut s = session();
    check(
        &mut s,
        &[
            ("1/3", "1/3"),
            ("(1/3) class", "Fraction"),
            ("(2/4)", "1/2"),
            ("(1/3) + (2/3)", "1"),
            ("(1/3) * 3", "1"),
            ("(1/2) < (2/3)", "true"),
            ("(1/2) = 0.5", "true"),
            ("(1/2) asFloat", "0.5"),
            ("(-3/4) numerator", "-3"),
            ("(3/4) denominator", "4"),
            ("6/3", "2"),
            ("(6/3) class", "SmallInteger"),
            ("1.5", "1.5"),
            ("1.5 class", "SmallDouble"),
            ("1.0e300 class", "Float"),
            ("100.0", "100.0"),
            ("1.5e10", "15000000000.0"),
            ("2.0d0", "2.0"),
            ("1.0e-5", "1.0e-5"),
            ("1.0e100", "1.0e100"),
            ("0.1 + 0.2", "0.30000000000000004"),
            ("2 sqrt", "1.4142135623730951"),
            ("3 + 0.5", "3.5"),
            ("3.7 truncated", "3"),
            ("3.5 rounded", "4"),
            ("-3.7 floor", "-4"),
            ("3.2 ceiling", "4"),
            ("3 = 3.0", "true"),
            ("-2.5", "-2.5"),
            ("3.7s2", "3.70s2"),
            ("1.5s2 + 1", "2.50s2"),
            ("3s", "3s0"),
            ("(1/3) asScaledDecimal: 4", "0.3333s4"),
            ("0.1s1 + (1/10)", "0.2s1"),
            ("(1.5s2 + 1) class", "ScaledDecimal"),
            ("1.5s2 + 1.0", "2.5"),
            (
                "#(1.5 -2 -3.5e2 2r101 16r1F)",
                "anArray( 1.5, -2, -350.0, 5, 31)",
            ),
        ],
    );
}

#[test]
fn strings_symbols_characters() {
    let mut s = session();
    check(
        &mut s,
        &[
            ("'it''s'", "'it''s'"),
            ("'abc' size", "3"),
            ("'abc' at: 2", "$b"),
            ("'abc', 'def'", "'abcdef'"),
            ("'abc' = 'abc'", "true"),
            ("'abc' = 'abd'", "false"),
            ("'abc' < 'abd'", "true"),
            ("'hello' asUppercase", "'HELLO'"),
            ("'HeLLo' asLowercase", "'hello'"),
            ("'Hello' asSymbol", "#Hello"),
            ("#foo", "#foo"),
            ("#foo:bar:", "#foo:bar:"),
            ("#+", "#+"),
            ("#'with space'", "#'with space'"),
            ("#'it''s'", "#'it''s'"),
            ("#foo:bar: numArgs", "2"),
            ("#abc == #abc", "true"),
            ("'abc' asSymbol == #abc", "true"),
            ("#abc asString", "'abc'"),
            ("'hello world' copyFrom: 1 to: 5", "'hello'"),
            ("'hello' copyFrom: 3 to: 2", "''"),
            ("'hello' indexOf: $l", "3"),
            ("'hello' indexOf: $z", "0"),
            ("'hello world' includesSubstring: 'o w'", "true"),
            ("'Hello World' includesString: 'world'", "true"),
            ("'abc' hash = 'abc' copy hash", "true"),
            ("'abc' displayString", "'abc'"),
            ("'abc' printString", "'''abc'''"),
            ("$a", "$a"),
            ("$a value", "97"),
            ("97 asCharacter", "$a"),
            ("(Character value: 65)", "$A"),
            ("$a isVowel", "true"),
            ("$b isVowel", "false"),
            ("$b isLetter", "true"),
            ("$5 isDigit", "true"),
            ("$a asUppercase", "$A"),
            ("$'", "$'"),
            ("(String new: 3) size", "3"),
            ("| s | s := String new: 2. s at: 1 put: $a. s at: 2 put: (Character value: 955). s class", "DoubleByteString"),
            ("| s | s := String new: 2. s at: 1 put: $a. s at: 2 put: (Character value: 955). s size", "2"),
            ("'λx' size", "2"),
            ("'λx' encodeAsUTF8 size", "3"),
            ("'λx' encodeAsUTF8 decodeFromUTF8 = 'λx'", "true"),
            ("'héllo' encodeAsUTF8 decodeFromUTF8", "'héllo'"),
            ("'3 + 4' evaluate", "7"),
            ("'42' asNumber", "42"),
            ("'1.5' asNumber", "1.5"),
            ("'x' asNumber", "nil"),
            ("'  trim me  ' trimSeparators", "'trim me'"),
            ("'abc' reverse", "'cba'"),
            ("'a b  c' subStrings size", "3"),
            ("'hello' occurrencesOf: $l", "2"),
            ("'FooTest' matchPattern: #('Foo' $* 'Test')", "true"),
            ("'hello' startsWith: 'he'", "true"),
        ],
    );
}

#[test]
fn literals_arrays_cascades() {
    let mut s = session();
    check(
        &mut s,
        &[
            (
                "#(1 2 #(3 4) foo bar: #baz nil true false $a 'x' 2.5)",
                "anArray( 1, 2, anArray( 3, 4), #foo, #bar:, #baz, nil, true, false, $a, 'x', 2.5)",
            ),
            (
                "#(foo:bar: + #- (a b))",
                "anArray( #foo:bar:, #+, #-, anArray( #a, #b))",
            ),
            ("#(1 -2 -3.5)", "anArray( 1, -2, -3.5)"),
            ("#() size", "0"),
            ("#[1 2 255] size", "3"),
            ("#[1 2 255] at: 3", "255"),
            ("#[1 2 255] class", "ByteArray"),
            ("{1 + 1. 'a'. #b}", "anArray( 2, 'a', #b)"),
            ("{}", "anArray( )"),
            (
                "| a | a := Array new: 3. a at: 1 put: 1; at: 2 put: 2. a",
                "anArray( 1, 2, nil)",
            ),
            ("(Array new: 2) at: 1 put: 5; yourself", "anArray( 5, nil)"),
            ("3 + 4; * 10", "30"),
            ("\"a comment\" 3 \"another\" + \"x\" 4", "7"),
            ("| x y | x := y := 3. x + y", "6"),
            ("nil", "nil"),
            ("true & false", "false"),
            ("true | false", "true"),
            ("3 -> 4", "3->4"),
            ("(3 -> 4) value", "4"),
            ("Object new", "anObject"),
            ("Object", "Object"),
            ("Object class", "Object class"),
            ("Object class class", "Metaclass"),
            ("3 class", "SmallInteger"),
            ("nil class", "UndefinedObject"),
            ("3 isKindOf: Integer", "true"),
            ("3 respondsTo: #printString", "true"),
            ("3 respondsTo: #zork", "false"),
            ("3 perform: #+ with: 4", "7"),
            ("3 perform: #between:and: with: 1 with: 5", "true"),
            ("3 perform: #factorial", "6"),
            ("Array new: 2", "anArray( nil, nil)"),
            ("#(1 2 3) indexOf: 2", "2"),
            ("#(1 $a) , #(2)", "anArray( 1, $a, 2)"),
        ],
    );
}

#[test]
fn blocks_closures_and_inlined_control() {
    let mut s = session();
    check(
        &mut s,
        &[
            ("[:x :y | x + y] value: 1 value: 2", "3"),
            ("[] value", "nil"),
            ("[:x | ] value: 3", "nil"),
            ("[3] numArgs", "0"),
            ("[:a :b | a] numArgs", "2"),
            ("[:a | a] valueWithArguments: #(7)", "7"),
            ("| make a b | make := [:n | [:x | x + n]]. a := make value: 10. b := make value: 20. (a value: 1) + (b value: 2)", "33"),
            ("| c inc | c := 0. inc := [c := c + 1]. inc value. inc value. c", "2"),
            ("| x | x := 1. [[x := x + 1] value] value. x", "2"),
            ("| x | x := 1. [:y | [:z | x + y + z] value: 3] value: 2", "6"),
            ("| i b | i := 0. b := [i < 5]. b whileTrue: [i := i + 1]. i", "5"),
            ("| i | i := 0. [i := i + 1. i < 5] whileTrue. i", "5"),
            ("| i | i := 10. [i <= 0] whileFalse: [i := i - 3]. i", "-2"),
            ("| s | s := 0. 1 to: 10 do: [:i | s := s + i]. s", "55"),
            ("| s | s := 0. 10 to: 1 by: -2 do: [:i | s := s + i]. s", "30"),
            ("| s | s := 0. 1 to: 2 by: 0.5 do: [:i | s := s + i]. s", "4.5"),
            ("| n | n := 0. 5 timesRepeat: [n := n + 2]. n", "10"),
            ("3 > 2 ifTrue: ['y'] ifFalse: ['n']", "'y'"),
            ("(3 > 2) ifFalse: ['n']", "nil"),
            ("(3 < 2) ifFalse: ['n'] ifTrue: ['y']", "'n'"),
            ("nil ifNil: [1] ifNotNil: [:x | x]", "1"),
            ("5 ifNil: [1] ifNotNil: [:x | x * 2]", "10"),
            ("5 ifNotNil: [:x | x + 1]", "6"),
            ("nil ifNotNil: [:x | x + 1]", "nil"),
            ("5 ifNil: [0]", "5"),
            ("nil isNil", "true"),
            ("(3 > 2) and: [2 > 1]", "true"),
            ("(3 < 2) or: [2 > 1]", "true"),
            ("(3 < 2) and: [1/0]", "false"),
            ("| blocks | blocks := Array new: 3. 1 to: 3 do: [:i | blocks at: i put: [i * 10]]. (blocks at: 1) value + (blocks at: 3) value", "40"),
            ("| b | b := [:x | x > 0 ifTrue: [x + (b value: x - 1)] ifFalse: [0]]. b value: 100", "5050"),
            ("| b t | b := [:x | t := x]. b value: 4. t", "4"),
            ("[:x | | t | t := x * 2. t] value: 21", "42"),
            ("| cond | cond := true. cond ifTrue: [1] ifFalse: [2]", "1"),
            ("| r | r := 0. #(1 2 3) size timesRepeat: [r := r + 1]. r", "3"),
        ],
    );
}

const CLASSES: &str = r#"
doit
Object subclass: 'EngPoint'
  instVarNames: #(x y)
  classVars: #(Count)
  classInstVars: #(made)
  poolDictionaries: #()
  inDictionary: UserGlobals
  options: #()
%
category: 'accessing'
method: EngPoint
x
  ^ x
%
method: EngPoint
y
  ^ y
%
method: EngPoint
x: ax y: ay
  x := ax. y := ay
%
method: EngPoint
+ other
  ^ EngPoint new x: x + other x y: y + other y
%
method: EngPoint
printString
  ^ x printString, '@', y printString
%
category: 'counting'
classmethod: EngPoint
x: ax y: ay
  Count := (Count ifNil: [0]) + 1.
  made := (made ifNil: [0]) + 1.
  ^ self new x: ax y: ay
%
classmethod: EngPoint
count
  ^ Count
%
classmethod: EngPoint
made
  ^ made
%
doit
EngPoint subclass: 'EngPoint3'
  instVarNames: #(z)
  classVars: #()
  classInstVars: #()
  poolDictionaries: #()
  inDictionary: UserGlobals
  options: #()
%
method: EngPoint3
printString
  ^ super printString, '@', z printString
%
method: EngPoint3
z: az
  z := az
%
doit
Object subclass: 'EngFlow'
  instVarNames: #()
  classVars: #()
  classInstVars: #()
  poolDictionaries: #()
  inDictionary: UserGlobals
  options: #()
%
method: EngFlow
find: n
  [:i | i = n ifTrue: [^ i * 100]] value: n.
  ^ 0
%
method: EngFlow
escape
  ^ [:v | ^ v]
%
method: EngFlow
ensureReturn: log
  [^ 1] ensure: [log at: 1 put: #ran].
  ^ 2
%
method: EngFlow
down: n
  ^ self down: n + 1
%
method: EngFlow
nlrThroughHandler
  [#(1 2 3) do: [:e | ^ e]] on: Error do: [:ex | ^ #error].
  ^ #none
%
method: EngFlow
returnFromHandler
  [1/0] on: ZeroDivide do: [:e | ^ #fromHandler].
  ^ #notReached
%
method: EngFlow
returnThroughEnsureInHandler: log
  [[1/0] ensure: [log at: 1 put: #unwound]] on: ZeroDivide do: [:e | ^ #fromHandler].
  ^ #notReached
%
method: EngFlow
deepReturn
  ^ [:a | [:b | [:c | ^ a + b + c] value: 3] value: 2] value: 1
%
"#;

#[test]
fn classes_methods_super_nonlocal_return() {
    let mut s = session();
    if let Err(e) = s.file_in(CLASSES) {
        panic!("file-in failed: {e:?}");
    }
    check(
        &mut s,
        &[
            ("(EngPoint x: 1 y: 2) printString", "'1@2'"),
            ("(EngPoint x: 1 y: 2) + (EngPoint x: 10 y: 20)", "11@22"),
            ("EngPoint count > 0", "true"),
            ("EngPoint made > 0", "true"),
            ("EngPoint3 made", "nil"),
            (
                "(EngPoint3 new x: 1 y: 2; z: 3; yourself) printString",
                "'1@2@3'",
            ),
            ("EngPoint instVarNames", "anArray( #x, #y)"),
            ("EngPoint3 allInstVarNames", "anArray( #x, #y, #z)"),
            ("EngPoint classVarNames", "anArray( #Count)"),
            ("EngPoint class instVarNames", "anArray( #made)"),
            ("EngPoint superclass", "Object"),
            ("EngPoint3 superclass", "EngPoint"),
            ("EngPoint subclasses", "anArray( EngPoint3)"),
            ("EngPoint3 allSuperclasses", "anArray( EngPoint, Object)"),
            (
                "EngPoint selectors",
                "anArray( #+, #printString, #x, #x:y:, #y)",
            ),
            ("EngPoint class selectors", "anArray( #count, #made, #x:y:)"),
            ("EngPoint categoryNames", "anArray( #accessing)"),
            ("EngPoint categoryOfSelector: #x", "#accessing"),
            ("EngPoint class categoryOfSelector: #count", "#counting"),
            (
                "EngPoint selectorsIn: 'accessing'",
                "anArray( #+, #printString, #x, #x:y:, #y)",
            ),
            ("EngPoint includesSelector: #x", "true"),
            ("EngPoint includesSelector: #z", "false"),
            ("EngPoint sourceCodeAt: #x", "'x\n  ^ x'"),
            ("(EngPoint compiledMethodAt: #x) selector", "#x"),
            ("(EngPoint compiledMethodAt: #x) inClass", "EngPoint"),
            ("EngPoint inheritsFrom: Object", "true"),
            ("EngPoint isMeta", "false"),
            ("EngPoint class isMeta", "true"),
            ("EngPoint name", "#EngPoint"),
            ("EngPoint comment: 'A point'. EngPoint comment", "'A point'"),
            ("EngPoint category: 'Eng'. EngPoint category", "#Eng"),
            (
                "(EngPoint definition includesSubstring: 'instVarNames: #(x y)')",
                "true",
            ),
            (
                "(EngPoint definition includesSubstring: 'classVars: #(Count)')",
                "true",
            ),
            ("EngFlow new find: 7", "700"),
            (
                "| a | a := Array new: 1. {EngFlow new ensureReturn: a. a at: 1}",
                "anArray( 1, #ran)",
            ),
            ("EngFlow new deepReturn", "6"),
            ("EngFlow new nlrThroughHandler", "1"),
            ("EngFlow new returnFromHandler", "#fromHandler"),
            (
                "| a | a := Array new: 1. {EngFlow new returnThroughEnsureInHandler: a. a at: 1}",
                "anArray( #fromHandler, #unwound)",
            ),
            (
                "[EngFlow new returnFromHandler] on: ZeroDivide do: [:e | #outer]",
                "#fromHandler",
            ),
            (
                "[(EngFlow new escape) value: 3] on: CannotReturn do: [:e | #cannotReturn]",
                "#cannotReturn",
            ),
            (
                "System myUserProfile symbolList names",
                "anArray( #UserGlobals, #Globals, #Published)",
            ),
            (
                "(System myUserProfile objectNamed: #EngPoint) == EngPoint",
                "true",
            ),
            (
                "(System myUserProfile resolveSymbol: #EngPoint) value == EngPoint",
                "true",
            ),
            ("System myUserProfile objectNamed: #NoSuchThing", "nil"),
            ("(UserGlobals at: #EngPoint) == EngPoint", "true"),
            ("UserGlobals at: #EngMissing ifAbsent: [#absent]", "#absent"),
            (
                "UserGlobals at: #EngVar put: 42. UserGlobals at: #EngVar",
                "42",
            ),
            ("EngVar + 1", "43"),
            (
                "(System myUserProfile objectNamed: #Globals) == Globals",
                "true",
            ),
            ("UserGlobals name", "#UserGlobals"),
            ("System myUserProfile userId", "'DataCurator'"),
            ("System stoneName", "'gs64stone'"),
            (
                "System session printString , ' ' , System needsCommit printString",
                "'1 false'",
            ),
            (
                "SessionTemps current at: #k put: 3. SessionTemps current at: #k",
                "3",
            ),
            ("Transcript show: 'hi'; cr. 3", "3"),
        ],
    );
    check_err(
        &mut s,
        &[("(EngFlow new escape) value: 3", 2011, "CannotReturn")],
    );
    assert!(s.take_transcript().contains("hi\n"));
}

#[test]
fn compile_method_and_errors() {
    let mut s = session();
    s.file_in(CLASSES).expect("file-in");
    check(
        &mut s,
        &[
            ("(EngPoint compileMethod: 'double ^ x * 2' dictionaries: System myUserProfile symbolList category: 'math' environmentId: 0) selector", "#double"),
            ("(EngPoint x: 4 y: 0) double", "8"),
            ("EngPoint categoryOfSelector: #double", "#math"),
            ("EngPoint compileMethod: 'triple ^ x * 3' dictionaries: System myUserProfile symbolList category: 'math'", "nil"),
            ("| errs | errs := EngPoint compileMethod: 'bar ^ zork' dictionaries: System myUserProfile symbolList category: 'x'. (errs at: 1) at: 1", "1031"),
            ("| errs | errs := EngPoint compileMethod: 'bar ^ zork' dictionaries: System myUserProfile symbolList category: 'x'. (errs at: 1) at: 2", "7"),
            ("| errs | errs := EngPoint compileMethod: 'bar ^ zork' dictionaries: System myUserProfile symbolList category: 'x'. (errs at: 1) at: 5", "#zork"),
            ("| errs | errs := EngPoint compileMethod: 'bar ^ (3 + ' dictionaries: System myUserProfile symbolList category: 'x'. ((errs at: 1) at: 1) = 1001", "true"),
            ("EngPoint includesSelector: #bar", "false"),
            ("[EngPoint compileMethod: 'bar ^ zork' dictionaries: System myUserProfile symbolList category: 'x' environmentId: 0] on: CompileError do: [:e | e errorDetails size]", "1"),
            ("[EngPoint compileMethod: 'bar | x | ^ 1' dictionaries: System myUserProfile symbolList category: 'x' environmentId: 0] on: CompileError do: [:e | (e errorDetails at: 1) at: 1]", "1030"),
            ("[EngPoint compileMethod: 'bar: a a := 1' dictionaries: System myUserProfile symbolList category: 'x' environmentId: 0] on: CompileError do: [:e | (e errorDetails at: 1) at: 1]", "1033"),
            ("['3 +' evaluate] on: CompileError do: [:e | #bad]", "#bad"),
            ("EngPoint removeSelector: #double. EngPoint includesSelector: #double", "false"),
            ("[EngPoint removeSelector: #double] on: Error do: [:e | e class name]", "#LookupError"),
            ("(EngPoint x: 1 y: 1) respondsTo: #triple", "true"),
            ("EngPoint moveMethod: #triple toCategory: 'other'. EngPoint categoryOfSelector: #triple", "#other"),
        ],
    );
    // a doit with an undefined variable reports the offset and line
    match s.evaluate_print_string("3 +\n  zork") {
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::Compile);
            assert_eq!(e.offset, Some(7));
            assert_eq!(e.line, Some(2));
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    match s.evaluate_print_string("3 +") {
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::Compile);
            assert_eq!(e.number, 1001);
            assert!(e.offset.is_some() && e.line == Some(1));
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn class_redefinition_makes_versions() {
    let mut s = session();
    s.file_in(CLASSES).expect("file-in");
    check(
        &mut s,
        &[
            ("| old | old := EngPoint. (Object subclass: 'EngPoint' instVarNames: #(x y) classVars: #(Count) classInstVars: #(made) poolDictionaries: #() inDictionary: UserGlobals options: #()) == old", "true"),
            ("(EngPoint x: 1 y: 5) x", "1"),
            ("| old new | old := EngPoint. new := Object subclass: 'EngPoint' instVarNames: #(x y w) classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #(). {new == old. EngPoint == new. new classHistory size. new selectors size. old selectors size > 0}", "anArray( false, true, 2, 0, true)"),
            ("EngPoint instVarNames", "anArray( #x, #y, #w)"),
            ("EngPoint new respondsTo: #x", "false"),
            ("(Object subclass: 'EngBytes' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #()) name", "#EngBytes"),
            ("(ByteArray byteSubclass: 'EngBA' classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #()) isBytes", "true"),
            ("EngBA definition evaluate == EngBA", "true"),
            ("EngPoint definition evaluate == EngPoint", "true"),
            ("(Object indexableSubclass: 'EngIdx' instVarNames: #(a) classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #()) isIndexable", "true"),
            ("| o | o := EngIdx new: 3. o at: 2 put: 7. {o size. o at: 2. o instVarAt: 1}", "anArray( 3, 7, nil)"),
            ("[Object subclass: 'EngBad' instVarNames: #(a a) classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #()] on: Error do: [:e | #refused]", "#refused"),
        ],
    );
}

#[test]
fn exceptions_ansi_semantics() {
    let mut s = session();
    check(
        &mut s,
        &[
            ("[1/0] on: ZeroDivide do: [:e | e return: 5]", "5"),
            ("[1/0] on: ZeroDivide do: [:e | 7]", "7"),
            ("[1/0] on: ZeroDivide do: [:e | e return]", "nil"),
            ("[3] on: ZeroDivide do: [:e | 7]", "3"),
            ("[1/0. 3] on: ZeroDivide do: [:e | e retryUsing: [4]]", "4"),
            ("| n | n := 0. [n := n + 1. n < 3 ifTrue: [1/0]. n] on: ZeroDivide do: [:e | e retry]", "3"),
            ("[(Warning signal: 'w') + 1] on: Warning do: [:e | e resume: 41]", "42"),
            ("[[Error signal: 'x'] on: Error do: [:e | e resume: 1]] on: IllegalResumeAttempt do: [:e | e class name]", "#IllegalResumeAttempt"),
            ("[[1/0] on: ZeroDivide do: [:e | e pass]] on: ZeroDivide do: [:e | e return: 9]", "9"),
            ("[[1/0] on: ZeroDivide do: [:e | e outer. 5]] on: ZeroDivide do: [:e | e return: 9]", "9"),
            ("[[Notification signal. 4] on: Notification do: [:ex | ex outer. ex return: 5]] value", "5"),
            ("[Notification signal. 4] on: Notification do: [:ex | ex pass. ex return: 5]", "4"),
            ("[[Warning signal: 'x'] on: Warning do: [:e | (e outer) + 1]] on: Warning do: [:e | e resume: 10]", "11"),
            ("[[1/0] on: ZeroDivide do: [:e | 1/0]] on: ZeroDivide do: [:e | 77]", "77"),
            ("[[1/0] on: ZeroDivide do: [:e | Error signal: 'inner']] on: Error do: [:e | e messageText]", "'inner'"),
            ("[[1/0] on: ZeroDivide do: [:e | e signal]] on: ZeroDivide do: [:e | #outer]", "#outer"),
            ("[nil foo] on: ZeroDivide, MessageNotUnderstood do: [:e | e class name]", "#MessageNotUnderstood"),
            ("[1/0] on: Error, ZeroDivide do: [:e | e class name]", "#ZeroDivide"),
            ("[nil foo + 1] on: MessageNotUnderstood do: [:e | e resume: 1]", "2"),
            ("[nil foo: 3] on: MessageNotUnderstood do: [:e | e message selector]", "#foo:"),
            ("[nil foo: 3] on: MessageNotUnderstood do: [:e | e message arguments]", "anArray( 3)"),
            ("[3 zork] on: MessageNotUnderstood do: [:e | e receiver]", "3"),
            ("[[Warning signal: 'a'] on: ZeroDivide do: [:e | 5]] on: Warning do: [:e | e resignalAs: ZeroDivide new]", "5"),
            ("| log n | log := Array new: 2. n := 0. [[1/0] ensure: [n := n + 1. log at: n put: #ensure]] on: ZeroDivide do: [:e | n := n + 1. log at: n put: #handler]. log", "anArray( #handler, #ensure)"),
            ("| log n | log := Array new: 3. n := 0. [[[1/0] ensure: [n := n + 1. log at: n put: #inner]] ensure: [n := n + 1. log at: n put: #outer]] on: ZeroDivide do: [:e | e return: nil]. log", "anArray( #inner, #outer, nil)"),
            ("| x | x := 0. [[1/0] ifCurtailed: [x := 1]] on: ZeroDivide do: [:e | nil]. x", "1"),
            ("| x | x := 0. [5] ifCurtailed: [x := 1]. x", "0"),
            ("| x | x := 0. [3] ensure: [x := 1]. x", "1"),
            ("[3] ensure: [4]", "3"),
            ("| x | x := 0. [[Warning signal] ensure: [x := x + 1]] on: Warning do: [:e | e resume: 5]. x", "1"),
            ("[Error signal: 'boom'] on: Error do: [:e | e messageText]", "'boom'"),
            ("[Error new signal: 'boom'] on: Error do: [:e | e description]", "'a Error occurred (error 2318), boom'"),
            ("[1/0] on: ZeroDivide do: [:e | e messageText]", "nil"),
            ("[1/0] on: ZeroDivide do: [:e | e description]", "'a ZeroDivide occurred (error 2026), attempt to divide 1 by zero'"),
            ("[1/0] on: ZeroDivide do: [:e | e number]", "2026"),
            ("[nil foo] on: MessageNotUnderstood do: [:e | e number]", "2010"),
            ("[Warning signal] on: Warning do: [:e | e isResumable]", "true"),
            ("[Error signal] on: Error do: [:e | e isResumable]", "false"),
            ("(Notification signal: 'n') isNil", "true"),
            ("Warning signal: 'w'. 3", "3"),
            ("[ZeroDivide new signal: 'custom'] on: ArithmeticError do: [:e | e messageText]", "'custom'"),
            ("[nil error: 'oops'] on: Error do: [:e | e messageText]", "'oops'"),
            ("[#() at: 5] on: OutOfRange do: [:e | #oor]", "#oor"),
            ("[#() at: 5] on: Error do: [:e | e number]", "2061"),
            ("[#(1 2) at: 1 put: 3] on: Error do: [:e | #invariant]", "#invariant"),
            ("[[1/0] on: MessageNotUnderstood do: [:e | #wrong]] on: ZeroDivide do: [:e | #right]", "#right"),
            ("[1/0] on: Exception do: [:e | e class name]", "#ZeroDivide"),
            ("[[1/0] on: ZeroDivide do: [:e | e isNested]] on: ZeroDivide do: [:e | 0]", "true"),
            ("[1/0] on: ZeroDivide do: [:e | e isNested]", "false"),
            ("| r | r := [Warning signal: 'a'. #resumed] on: Warning do: [:e | e resume]. r", "#resumed"),
        ],
    );
    check_err(
        &mut s,
        &[
            ("Error signal: 'boom'", 2318, "Error"),
            ("nil foo", 2010, "MessageNotUnderstood"),
            ("1/0", 2026, "ZeroDivide"),
            ("1.0/0", 2026, "ZeroDivide"),
            ("#() at: 5", 2061, "OutOfRange"),
            (
                "[Error signal: 'x'] on: Error do: [:e | e resume: 3]",
                2008,
                "IllegalResumeAttempt",
            ),
            ("[1/0] on: ZeroDivide do: [:e | e pass]", 2026, "ZeroDivide"),
            ("Object new halt", 2709, "Halt"),
            ("3 zork: 4", 2010, "MessageNotUnderstood"),
            ("'abc' + 2", 2010, "MessageNotUnderstood"),
            ("3 + 'abc'", 2094, "ArgumentTypeError"),
            ("[:a | a] value", 2718, "ArgumentError"),
        ],
    );
    let e = s.evaluate_print_string("Error signal: 'boom'").unwrap_err();
    assert_eq!(e.message_text.as_deref(), Some("boom"));
    assert_eq!(e.kind, ErrorKind::Runtime);
    let e = s.evaluate_print_string("3 zork").unwrap_err();
    assert_eq!(e.message_text, None);
    assert_eq!(
        e.description,
        "a MessageNotUnderstood occurred (error 2010), a SmallInteger does not understand  #'zork'"
    );
}

/// A loop primitive's block (`do:`, `doWithIndex:`, `detect:ifNone:`)
/// counts as a frame at every call, as a `value:` of it does: a recursion
/// through one reaches the frame limit at half the levels a method alone does.
#[test]
fn blocks_of_loop_primitives_count_against_the_frame_limit() {
    let mut s = session();
    s.file_in(
        r#"doit
Object subclass: 'EngNest' instVarNames: #(deepest) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
method: EngNest
deepest
  ^ deepest
%
method: EngNest
plain: n
  deepest := n.
  self plain: n + 1
%
method: EngNest
array: n
  deepest := n.
  #(1) do: [:e | self array: n + 1]
%
method: EngNest
indexed: n
  deepest := n.
  #(1) doWithIndex: [:e :i | self indexed: n + i]
%
method: EngNest
ordered: n
  deepest := n.
  (OrderedCollection with: 1) do: [:e | self ordered: n + 1]
%
method: EngNest
detect: n
  deepest := n.
  ^ #(1) detect: [:e | self detect: n + 1] ifNone: [nil]
%
method: EngNest
valued: n
  deepest := n.
  [:e | self valued: n + 1] value: 1
%
"#,
    )
    .expect("file-in");
    s.set_depth_limit(400);
    let mut got = Vec::new();
    for sel in [
        "plain:", "array:", "indexed:", "ordered:", "detect:", "valued:",
    ] {
        let src = format!(
            "| t | t := EngNest new. {{[t perform: #'{sel}' with: 0] on: AlmostOutOfStack do: [:e | e return: #deep]. t deepest}}"
        );
        got.push(
            s.evaluate_print_string(&src)
                .unwrap_or_else(|e| format!("{e:?}")),
        );
    }
    assert_eq!(
        got,
        [
            "anArray( #deep, 397)",
            "anArray( #deep, 198)",
            "anArray( #deep, 198)",
            "anArray( #deep, 198)",
            "anArray( #deep, 198)",
            "anArray( #deep, 198)",
        ]
    );
    assert_eq!(s.evaluate_print_string("3 + 4").unwrap(), "7");
}

#[test]
fn limits_deep_recursion_and_memory() {
    let mut s = session();
    s.file_in(CLASSES).expect("file-in");
    let e = s.evaluate_print_string("EngFlow new down: 1").unwrap_err();
    assert_eq!(
        (e.number, e.class_name.as_str(), e.kind),
        (3139, "AlmostOutOfStack", ErrorKind::Limit)
    );
    let e = s
        .evaluate_print_string("| b | b := nil. b := [:n | b value: n + 1]. b value: 1")
        .unwrap_err();
    assert_eq!(e.number, 3139);
    check(
        &mut s,
        &[
            (
                "[EngFlow new down: 1] on: AlmostOutOfStack do: [:e | #deep]",
                "#deep",
            ),
            ("3 + 4", "7"),
        ],
    );
    s.set_memory_limit(64 << 20);
    let e = s.evaluate_print_string("Array new: 100000000").unwrap_err();
    assert_eq!(
        (e.number, e.class_name.as_str()),
        (3140, "AlmostOutOfMemory")
    );
    let e = s
        .evaluate_print_string("| c | c := nil. [true] whileTrue: [c := {c. String new: 10000}]")
        .unwrap_err();
    assert_eq!(e.number, 3140);
    // a program that catches AlmostOutOfMemory and goes on allocating is stopped for good
    let e = s
        .evaluate_print_string("| c | c := nil. [[true] whileTrue: [c := {c. String new: 10000}]] on: AlmostOutOfMemory do: [:x | x return: nil]. [true] whileTrue: [c := {c. String new: 10000}]")
        .unwrap_err();
    assert_eq!((e.number, e.kind), (3140, ErrorKind::Limit));
    check(&mut s, &[("3 + 4", "7")]);
}

/// The collector runs during an evaluation: one that allocates far more
/// garbage than the memory budget finishes, and one whose live objects pass
/// the budget still meets AlmostOutOfMemory.
#[test]
fn garbage_past_the_budget_is_reclaimed_during_the_evaluation() {
    let mut s = session();
    s.set_memory_limit(32 << 20);
    let budget_multiples = [
        // about 1 GB of 10 000-byte strings, one live at a time
        (
            "| n | n := 0. 1 to: 100000 do: [:i | n := n + (String new: 10000) size]. n",
            "1000000000",
        ),
        // short-lived small objects, as the constraints benchmark makes them
        (
            "| oc | 1 to: 300000 do: [:i | oc := OrderedCollection new. oc add: i; add: {i. i printString}]. oc size",
            "2",
        ),
        // garbage made while fresh objects wait in a handler, an ensure: block and a brace
        (
            "| r | r := [[Error signal: 'e' copy] ensure: [1 to: 50000 do: [:i | Array new: 100]]] on: Error do: [:e | {e messageText. (1 to: 50000) inject: 0 into: [:a :i | (Array new: 100) size + a]}]. r",
            "anArray( 'e', 5000000)",
        ),
    ];
    check(&mut s, &budget_multiples);
    let e = s
        .evaluate_print_string("| c | c := nil. [true] whileTrue: [c := {c. String new: 10000}]")
        .unwrap_err();
    assert_eq!(
        (e.number, e.class_name.as_str(), e.kind),
        (3140, "AlmostOutOfMemory", ErrorKind::Limit)
    );
    check(&mut s, &[("3 + 4", "7")]);
    check(&mut s, &budget_multiples[..1]);
}

#[test]
fn sessions_from_the_template_are_independent() {
    let mut a = session();
    let mut b = session();
    check(
        &mut a,
        &[(
            "UserGlobals at: #EngOnlyA put: 1. (Object subclass: 'EngOnlyA') name",
            "#EngOnlyA",
        )],
    );
    check(
        &mut b,
        &[
            ("UserGlobals includesKey: #EngOnlyA", "false"),
            ("System myUserProfile objectNamed: #EngOnlyA", "nil"),
        ],
    );
    check(&mut a, &[("EngOnlyA new printString", "'anEngOnlyA'")]);
    let e = b.evaluate_print_string("EngOnlyA").unwrap_err();
    assert_eq!((e.kind, e.number), (ErrorKind::Compile, 1001));
}

#[test]
fn caller_thread_evaluation_survives_deep_recursion() {
    let h = std::thread::Builder::new()
        .stack_size(Session::REQUIRED_STACK_BYTES)
        .spawn(|| {
            let mut s = session();
            s.run_on_caller_thread(true);
            s.file_in(CLASSES).expect("file-in");
            let e = s.evaluate_print_string("EngFlow new down: 1").unwrap_err();
            assert_eq!(e.number, 3139);
            let e = s
                .evaluate_print_string(
                    "| b | b := nil. b := [:n | 1 + (b value: n + 1)]. b value: 1",
                )
                .unwrap_err();
            assert_eq!(e.number, 3139);
            // recursion through the primitive loops (Array and OrderedCollection
            // do:, detect:ifNone:) that call blocks from Rust
            s.file_in(
                "method: EngFlow\nloopsDown: n\n  #(1) do: [:e | (OrderedCollection with: e) do: [:x | #(1) detect: [:y | self loopsDown: n + 1] ifNone: [nil]]]\n%\n",
            )
            .expect("file-in");
            let e = s.evaluate_print_string("EngFlow new loopsDown: 1").unwrap_err();
            assert_eq!(e.number, 3139);
            s.evaluate_print_string("3 + 4").unwrap()
        })
        .unwrap();
    assert_eq!(h.join().unwrap(), "7");
}

#[test]
fn closures_outliving_their_doit_stay_correct() {
    let mut s = session();
    check(
        &mut s,
        &[
            (
                "UserGlobals at: #EngBlk put: [:x | x printString size]. 0",
                "0",
            ),
            ("| a | a := 3 factorial. a + (EngBlk value: 12345)", "11"),
            ("| a | a := #(1 2) size. a + (EngBlk value: 'ab')", "6"),
            ("(EngBlk value: 1) + (EngBlk value: 100)", "4"),
        ],
    );
}

#[test]
fn pool_dictionaries_and_class_variables_resolve_at_compile_time() {
    let mut s = session();
    let src = r#"
doit
UserGlobals at: #EngPool put: SymbolDictionary new.
%
doit
EngPool at: #PoolLimit put: 40.
Object subclass: 'EngPooled'
  instVarNames: #()
  classVars: #(Shared)
  classInstVars: #()
  poolDictionaries: { EngPool }
  inDictionary: UserGlobals
  options: #()
%
method: EngPooled
limit
  ^ PoolLimit + 2
%
method: EngPooled
share: x
  Shared := x
%
classmethod: EngPooled
shared
  ^ Shared
%
doit
EngPooled subclass: 'EngPooledSub'
  instVarNames: #()
  classVars: #()
  classInstVars: #()
  poolDictionaries: #()
  inDictionary: UserGlobals
  options: #()
%
method: EngPooledSub
sharedToo
  ^ Shared
%
"#;
    s.file_in(src).expect("file-in");
    check(
        &mut s,
        &[
            ("EngPooled new limit", "42"),
            ("EngPool at: #PoolLimit put: 1. EngPooled new limit", "3"),
            ("EngPooled new share: #x. EngPooled shared", "#x"),
            ("EngPooledSub new sharedToo", "#x"),
            ("EngPooled classVarAt: #Shared", "#x"),
            ("EngPooled sharedPools size", "1"),
        ],
    );
}

#[test]
fn cascade_parts_may_chain_messages() {
    let mut s = session();
    check(
        &mut s,
        &[
            // the part's first message goes to the cascade receiver, the rest to its answer
            ("OrderedCollection new add: 3; yourself size", "1"),
            ("OrderedCollection new add: 3; add: 4; yourself size", "2"),
            ("(OrderedCollection new add: 3; add: 4; yourself) size", "2"),
            ("3 + 4; * 10 + 1", "31"),
            ("3 + 4; * 10 + 1 * 2", "62"),
            ("3 + 4; factorial printString size", "1"),
            ("3 + 4; yourself between: 1 and: 5", "true"),
            ("3 + 4; yourself - 1 max: 10", "10"),
            ("#(1 2 3) size; reverse first", "3"),
            (
                "| oc | oc := OrderedCollection new. oc add: 5; yourself; add: 6; yourself size. oc asArray",
                "anArray( 5, 6)",
            ),
            // every part still starts from the same receiver
            (
                "| oc | oc := OrderedCollection new. (oc add: 1; yourself) add: 2; yourself; add: 3. oc asArray",
                "anArray( 1, 2, 3)",
            ),
            (
                "| ws | ws := WriteStream on: String new. ws nextPutAll: 'ab'; contents size printString; nextPutAll: 'c'. ws contents",
                "'abc'",
            ),
        ],
    );
    check_err(
        &mut s,
        &[
            ("3 + 4; zork size", 2010, "MessageNotUnderstood"),
            ("3 + 4; yourself zork", 2010, "MessageNotUnderstood"),
            ("3 + 4; ", 1001, "CompileError"),
            ("3 + 4; 5", 1001, "CompileError"),
            ("3 + 4; foo: ", 1001, "CompileError"),
        ],
    );
}

/// Sends reuse cached methods without copying them: a method that removes or
/// recompiles itself (or a class it runs in) while it is executing must go on
/// running its old code, and the next send must find the new code.
#[test]
fn methods_replaced_while_running_finish_their_old_code() {
    let mut s = session();
    let src = r#"doit
Object subclass: 'EngSelf' instVarNames: #(n) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'x'
method: EngSelf
step
  | before |
  before := 'old'.
  EngSelf compileMethod: 'step ^ ''new''' dictionaries: System myUserProfile symbolList category: 'x' environmentId: 0.
  EngSelf new yourself; yourself.
  ^ before , '-' , (Array new: 1000) size printString
%
method: EngSelf
vanish
  EngSelf removeSelector: #vanish.
  ^ (1 to: 50) inject: 0 into: [:a :b | a + b]
%
method: EngSelf
poly: x
  ^ x printString size
%
"#;
    if let Err(e) = s.file_in(src) {
        panic!("file-in failed: {e:?}");
    }
    check(
        &mut s,
        &[
            ("EngSelf new step", "'old-1000'"),
            ("EngSelf new step", "'new'"),
            ("EngSelf new vanish", "1275"),
            ("EngSelf new respondsTo: #vanish", "false"),
            // one send site seeing many receiver classes in turn
            (
                "| e | e := EngSelf new. (#(1 $a 'xy' #sym 2.5 nil true) collect: [:x | e poly: x]) asArray",
                "anArray( 1, 2, 4, 4, 3, 3, 4)",
            ),
        ],
    );
    check_err(
        &mut s,
        &[("EngSelf new vanish", 2010, "MessageNotUnderstood")],
    );
}

/// Blocks run through a borrowed closure, which relies on a block object's
/// body never being replaced: `become:` refuses blocks, even while they run.
#[test]
fn become_refuses_running_blocks() {
    let mut s = session();
    check_err(
        &mut s,
        &[
            (
                "| b other | other := Object new. b := [:x | b become: other. x * 2]. b value: 21",
                2094,
                "ArgumentTypeError",
            ),
            (
                "| b | b := [:x | Object new become: b. x * 2]. b value: 21",
                2094,
                "ArgumentTypeError",
            ),
        ],
    );
    check(
        &mut s,
        &[(
            "| b r | b := [:x | [b become: Object new] on: Error do: [:e | e return: 0]. x * 2]. r := b value: 21. {r. b value: 1}",
            "anArray( 42, 2)",
        )],
    );
}

/// Sets and Dictionaries find SmallInteger keys without sends when they can;
/// the answers must be those of the plain Smalltalk probe, including when the
/// tables also hold floats, strings or objects with their own `=` and `hash`.
#[test]
fn hashed_collections_with_mixed_keys() {
    let mut s = session();
    let src = r#"doit
Object subclass: 'EngSeven' instVarNames: #() classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'x'
method: EngSeven
= other
  ^ other = 7
%
method: EngSeven
hash
  ^ 7 hash
%
"#;
    if let Err(e) = s.file_in(src) {
        panic!("file-in failed: {e:?}");
    }
    check(
        &mut s,
        &[
            (
                "| d | d := Dictionary new. 1 to: 500 do: [:i | d at: i * 7 - 1000 put: i]. {d size. d at: -6 ifAbsent: [0]. d at: 6 ifAbsent: [0]. d at: -993. d at: 0 ifAbsent: [#none]}",
                "anArray( 500, 142, 0, 1, #none)",
            ),
            (
                "| d | d := Dictionary new. 1 to: 200 do: [:i | d at: i put: i. d at: i printString put: i negated]. 1 to: 200 by: 2 do: [:i | d removeKey: i]. {d size. d at: 2. d at: '3'. d at: 3 ifAbsent: [#gone]}",
                "anArray( 300, 2, -3, #gone)",
            ),
            (
                "| s | s := Set new. 1 to: 100 do: [:i | s add: i * 2.0]. {s includes: 4. s includes: 5. s size}",
                "anArray( true, false, 100)",
            ),
            (
                "| s | s := Set new. s add: EngSeven new. {s includes: 7. s includes: 8. (s add: 7; yourself) size}",
                "anArray( true, false, 1)",
            ),
            (
                "| d | d := Dictionary new. d at: EngSeven new put: #seven. {d at: 7 ifAbsent: [#none]. d at: 6 ifAbsent: [#none]}",
                "anArray( #seven, #none)",
            ),
            (
                "| s | s := Set new. #(3 -3 1152921504606846975 -1152921504606846976 0) do: [:i | s add: i]. {s size. s includes: -3. s includes: 1152921504606846975. s includes: 4}",
                "anArray( 5, true, true, false)",
            ),
        ],
    );
}

/// A `^` leaving through `ensure:`/`ifCurtailed:` blocks that themselves
/// return from methods still lands in its own home method.
#[test]
fn returns_through_ensure_blocks_reach_their_home() {
    let mut s = session();
    let src = r#"doit
Object subclass: 'EngRet' instVarNames: #(log) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'x'
method: EngRet
log
  ^ log ifNil: [log := OrderedCollection new]
%
method: EngRet
helper: x
  x > 0 ifTrue: [self log add: x. ^ x].
  ^ 0
%
method: EngRet
viaEnsure
  [^ 1] ensure: [self helper: 7. (self helper: 8) > 0 ifTrue: [self log add: #both]].
  ^ 2
%
method: EngRet
viaCurtailed
  [^ 10] ifCurtailed: [self helper: 9].
  ^ 20
%
method: EngRet
findIn: coll
  [coll do: [:e | e > 2 ifTrue: [^ e]]] ensure: [self helper: 1].
  ^ nil
%
method: EngRet
nested
  ^ (self findIn: #(1 2 3 4)) + (self viaEnsure * 100)
%
"#;
    if let Err(e) = s.file_in(src) {
        panic!("file-in failed: {e:?}");
    }
    check(
        &mut s,
        &[
            ("EngRet new viaEnsure", "1"),
            (
                "| r | r := EngRet new. r viaEnsure. r log asArray",
                "anArray( 7, 8, #both)",
            ),
            ("EngRet new viaCurtailed", "10"),
            (
                "| r | r := EngRet new. r viaCurtailed. r log asArray",
                "anArray( 9)",
            ),
            ("EngRet new findIn: #(1 5 9)", "5"),
            ("EngRet new findIn: #(1 2)", "nil"),
            ("EngRet new nested", "103"),
            (
                "| r | r := EngRet new. {r nested. r log asArray}",
                "anArray( 103, anArray( 1, 7, 8, #both))",
            ),
        ],
    );
}

/// Simple blocks (no self, instance variables, outer temporaries or `^`) are
/// made once per block expression, as GemStone does; every other block is a
/// new closure each time it is evaluated.
#[test]
fn simple_blocks_are_shared_and_others_are_not() {
    let mut s = session();
    check(
        &mut s,
        &[
            ("| bs | bs := (1 to: 3) collect: [:i | [0]]. (bs at: 1) == (bs at: 3)", "true"),
            ("| bs | bs := (1 to: 3) collect: [:i | [:x | x * 2]]. ((bs at: 1) value: 4) + ((bs at: 3) value: 5)", "18"),
            ("| bs | bs := (1 to: 3) collect: [:i | [i]]. (bs at: 1) == (bs at: 3)", "false"),
            ("| bs | bs := (1 to: 3) collect: [:i | [i]]. (bs collect: [:b | b value]) asArray", "anArray( 1, 2, 3)"),
            ("| t bs | t := 5. bs := (1 to: 2) collect: [:i | [t]]. (bs at: 1) == (bs at: 2)", "false"),
            ("| bs | bs := (1 to: 2) collect: [:i | [:x | | y | y := x. [y] value]]. ((bs at: 1) value: 7) + ((bs at: 2) value: 8)", "15"),
            ("| bs | bs := (1 to: 2) collect: [:i | [:x | [:z | x + z]]]. (((bs at: 1) value: 1) value: 2) + (((bs at: 2) value: 10) value: 20)", "33"),
            ("| d | d := Dictionary new. (1 to: 50) inject: 0 into: [:a :i | a + (d at: i ifAbsent: [i])]", "1275"),
            ("{[:x | x] == [:x | x]. [Object] value. [#(1 2) size] value}", "anArray( false, Object, 2)"),
        ],
    );
    // a simple block kept in a global outlives its doit, the collector and the reuse of its site
    check(
        &mut s,
        &[
            ("UserGlobals at: #EngInc put: [:x | x + 1]. 0", "0"),
            ("UserGlobals at: #EngMaker put: [:n | [:x | x + 100]]. 0", "0"),
            (
                "| a b | a := [:x | x * 1000]. b := [:x | x * 7]. {(EngMaker value: 0) value: 1. a value: 1. b value: 1. (EngMaker value: 1) == (EngMaker value: 2)}",
                "anArray( 101, 1000, 7, true)",
            ),
            ("UserGlobals at: #EngTimes put: [:x | x * 10]. 0",
                "0",
            ),
            (
                "(EngInc value: 1) + (EngTimes value: 1)", "12"),
        ],
    );
    s.collect_garbage();
    check(
        &mut s,
        &[
            (
                "| b | b := [:x | x - 1]. {EngInc value: 1. EngTimes value: 2. b value: 3}",
                "anArray( 2, 20, 2)",
            ),
            ("EngInc == EngTimes", "false"),
        ],
    );
}

#[test]
fn stack_reports_name_the_activations_at_the_signal() {
    let mut s = session();
    s.file_in(CLASSES).expect("file-in");
    // a deep recursion: one line per activation, innermost first
    let report = s
        .evaluate_string(
            "[EngFlow new down: 1] on: AlmostOutOfStack do: [:e | e return: e stackReport]",
        )
        .expect("report");
    let lines: Vec<&str> = report.lines().collect();
    // the signal comes at the activation past the 10 000-frame limit
    assert_eq!(lines.len(), 10_000);
    assert_eq!(lines[0], "EngFlow >> down: @1 line 2");
    assert_eq!(lines[lines.len() - 2], "[] in Executed Code @2 line 1");
    assert_eq!(lines[lines.len() - 1], "Executed Code @3 line 1");
    // every way out of an activation pops its record: after errors, non-local
    // returns, handler returns, ensure blocks and aborted evaluations the
    // stack is the doit alone
    let _ = s.evaluate_print_string("EngFlow new down: 1");
    let _ = s.evaluate_print_string("nil foo");
    for src in [
        "EngFlow new find: 3",
        "EngFlow new nlrThroughHandler",
        "EngFlow new returnFromHandler",
        "EngFlow new returnThroughEnsureInHandler: (Array new: 1)",
        "EngFlow new deepReturn",
        "[1/0] on: ZeroDivide do: [:e | e retryUsing: [7]]",
        "[Warning signal: 'w'] on: Warning do: [:e | e resume: 5]",
    ] {
        s.evaluate_print_string(src).expect(src);
        check(
            &mut s,
            &[(
                "GsProcess stackReportToLevel: 100",
                "'Executed Code @1 line 1\n'",
            )],
        );
    }
    // the level bounds the report; a block names its home method
    check(
        &mut s,
        &[
            (
                "[:x | GsProcess stackReportToLevel: x] value: 1",
                "'[] in Executed Code @1 line 1\n'",
            ),
            (
                "(GsProcess stackReportToLevel: 0) isEmpty",
                "true",
            ),
            (
                "| ex | ex := [#(1 2) do: [:e | e foo]] on: MessageNotUnderstood do: [:e | e]. ex stackReport lines first",
                "'[] in Executed Code @2 line 1'",
            ),
            ("Error new stackReport", "nil"),
            // a primitive loop that calls blocks is reported as its method
            (
                "| ex | ex := [#(1 2) do: [:e | e foo]] on: MessageNotUnderstood do: [:e | e]. (ex stackReport lines at: 2)",
                "'Array (SequenceableCollection) >> do: @1 line 1'",
            ),
        ],
    );
}

/// A recursion whose frames each hold a deep expression tree runs out of
/// native stack long before the frame limit: it is `AlmostOutOfStack`, which a
/// handler can catch, never a stack overflow that kills the process — on the
/// engine's own thread and on a caller's thread alike. A statement too deep to
/// walk at all is a compile error.
#[test]
fn deep_expressions_in_deep_recursion_end_as_almost_out_of_stack() {
    let body = format!(
        "deep: n ^ n = 0 ifTrue: [0] ifFalse: [(self deep: n - 1){}]",
        " + 1".repeat(2000)
    );
    let run = move |direct: bool| {
        let mut s = session();
        s.run_on_caller_thread(direct);
        s.evaluate_print_string(
            "Object subclass: 'EngDeep' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals",
        )
        .unwrap();
        s.evaluate_print_string(&format!(
            "EngDeep compileMethod: '{body}' dictionaries: System myUserProfile symbolList category: 'deep'"
        ))
        .unwrap();
        assert_eq!(
            s.evaluate_print_string("EngDeep new deep: 3").unwrap(),
            "6000"
        );
        let e = s
            .evaluate_print_string("EngDeep new deep: 9000")
            .unwrap_err();
        assert_eq!(
            (e.number, e.class_name.as_str(), e.kind),
            (3139, "AlmostOutOfStack", ErrorKind::Limit),
            "{}",
            e.description
        );
        assert!(e.description.contains("native stack"), "{}", e.description);
        assert_eq!(
            s.evaluate_print_string(
                "[EngDeep new deep: 9000] on: AlmostOutOfStack do: [:e | #caught]"
            )
            .unwrap(),
            "#caught"
        );
        let e = s
            .evaluate_print_string(&format!("1{}", "+1".repeat(20_000)))
            .unwrap_err();
        assert!(
            e.description.contains("statement too large"),
            "{}",
            e.description
        );
        s.evaluate_print_string("3 + 4").unwrap()
    };
    assert_eq!(run(false), "7");
    let h = std::thread::Builder::new()
        .stack_size(Session::REQUIRED_STACK_BYTES)
        .spawn(move || run(true))
        .unwrap();
    assert_eq!(h.join().unwrap(), "7");
}

/// A class may have more named instance variables than a method can number
/// (16 bits): a method naming one past that is a compile error, never a read
/// or write of another variable.
#[test]
fn instance_variables_past_the_sixteen_bit_index_are_a_compile_error() {
    let mut s = session();
    s.evaluate_print_string(
        "| names | names := (1 to: 65540) collect: [:i | ('v', i printString) asSymbol]. \
         Object subclass: 'EngWide' instVarNames: names classVars: #() classInstVars: #() \
         poolDictionaries: #() inDictionary: UserGlobals. #ok",
    )
    .unwrap();
    for source in ["setLast v65537 := 7. ^ v1", "getLast ^ v65540"] {
        let e = s
            .evaluate_print_string(&format!(
                "EngWide compileMethod: '{source}' dictionaries: System myUserProfile symbolList category: 'x'"
            ))
            .unwrap();
        assert!(e.contains("past the 65536"), "{source}: {e}");
    }
    s.evaluate_print_string(
        "EngWide compileMethod: 'setFirst v65536 := 7. ^ v1' dictionaries: System myUserProfile symbolList category: 'x'",
    )
    .unwrap();
    assert_eq!(
        s.evaluate_print_string("EngWide new setFirst").unwrap(),
        "nil"
    );
}

/// The resident set of this process at its peak, in bytes (Linux: VmHWM).
fn peak_rss() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<usize>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Every way of making a big object out of others meets the memory budget
/// where the object is made: AlmostOutOfMemory, catchable, the session goes
/// on, and the process never holds much more than the budget.
#[test]
fn objects_grown_from_others_meet_the_budget_where_they_are_made() {
    let mut s = session();
    let budget = 64 << 20;
    s.set_memory_limit(budget);
    let before = peak_rss();
    let bombs = [
        "| s | s := 'ab'. 40 timesRepeat: [s := s , s]. s size",
        "| s | s := 'ab' , 'cd'. 40 timesRepeat: [s := s , s]. s asSymbol size",
        "| s | s := 'abcd'. 24 timesRepeat: [s := s , s]. s asSymbol size",
        "| s | s := Array new: 4. 40 timesRepeat: [s := s , s]. s size",
        "| s | s := 'ab'. 40 timesRepeat: [s := s , s copy]. s size",
        "| w | w := WriteStream on: String new. 40 timesRepeat: [w nextPutAll: w contents , 'x']. w contents size",
        "| s | s := 'ab'. 40 timesRepeat: [s := s reverse , s asUppercase]. s size",
        "| b | b := ByteArray new: 8. 40 timesRepeat: [b := b , b]. b size",
        "| s | s := 'ab'. 30 timesRepeat: [s := s copyReplaceAll: 'a' with: 'aa']. s size",
    ];
    for bomb in bombs {
        let e = s.evaluate_print_string(bomb).unwrap_err();
        assert_eq!(
            (e.number, e.class_name.as_str()),
            (3140, "AlmostOutOfMemory"),
            "{bomb}: {e:?}"
        );
        let caught = format!("[{bomb}] on: AlmostOutOfMemory do: [:e | e return: #caught]");
        assert_eq!(
            s.evaluate_print_string(&caught).unwrap(),
            "#caught",
            "{caught}"
        );
        check(&mut s, &[("3 + 4", "7")]);
    }
    let grown = peak_rss().saturating_sub(before);
    assert!(
        grown < 6 * budget,
        "the bombs grew the process by {} MB against a {} MB budget",
        grown >> 20,
        budget >> 20
    );
}
