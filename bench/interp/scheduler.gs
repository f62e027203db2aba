! Object-heavy scheduling: producer, relay and consumer tasks passing pooled packets
! through linked-list queues, picked by priority on every step.
doit
Object subclass: 'BenchPacket' instVarNames: #(link datum data) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
Object subclass: 'BenchTask' instVarNames: #(scheduler priority head) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
BenchTask subclass: 'BenchProducer' instVarNames: #(remaining counter) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
BenchTask subclass: 'BenchRelay' instVarNames: #() classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
BenchTask subclass: 'BenchConsumer' instVarNames: #(sum count) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
Object subclass: 'BenchSched' instVarNames: #(pool relays consumer tasks) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'bench'
method: BenchPacket
initialize
  datum := 0. data := Array new: 4 withAll: 0
%
method: BenchPacket
link
  ^ link
%
method: BenchPacket
link: aPacket
  link := aPacket
%
method: BenchPacket
datum
  ^ datum
%
method: BenchPacket
datum: n
  datum := n
%
method: BenchPacket
data
  ^ data
%
method: BenchTask
scheduler: aScheduler priority: n
  scheduler := aScheduler. priority := n
%
method: BenchTask
enqueue: packet
  | p |
  packet link: nil.
  head isNil ifTrue: [^ head := packet].
  p := head.
  [p link notNil] whileTrue: [p := p link].
  p link: packet
%
method: BenchTask
dequeue
  | p |
  p := head.
  head := p link.
  p link: nil.
  ^ p
%
method: BenchTask
isReady
  ^ head notNil
%
method: BenchProducer
count: n
  remaining := n. counter := 0
%
method: BenchProducer
isReady
  ^ remaining > 0
%
method: BenchProducer
step
  4 timesRepeat: [ | p data |
    remaining = 0 ifTrue: [^ self].
    remaining := remaining - 1.
    counter := counter + 1.
    p := scheduler newPacket.
    p datum: counter.
    data := p data.
    1 to: 4 do: [:i | data at: i put: i * counter \\ 256].
    (scheduler relayAt: counter \\ 2 + 1) enqueue: p]
%
method: BenchRelay
step
  | p data |
  p := self dequeue.
  data := p data.
  1 to: 4 do: [:i | data at: i put: (data at: i) + p datum \\ 256].
  scheduler consumer enqueue: p
%
method: BenchConsumer
initialize
  sum := 0. count := 0
%
method: BenchConsumer
sum
  ^ sum
%
method: BenchConsumer
count
  ^ count
%
method: BenchConsumer
step
  | p data |
  p := self dequeue.
  data := p data.
  sum := sum + p datum + (data at: 1) + (data at: 2) + (data at: 3) + (data at: 4).
  count := count + 1.
  scheduler freePacket: p
%
method: BenchSched
setUp: packets
  | producer |
  relays := Array with: (BenchRelay new scheduler: self priority: 2)
                  with: (BenchRelay new scheduler: self priority: 2).
  consumer := BenchConsumer new scheduler: self priority: 1; initialize; yourself.
  producer := BenchProducer new scheduler: self priority: 3; count: packets; yourself.
  tasks := Array with: (relays at: 1) with: (relays at: 2) with: consumer with: producer
%
method: BenchSched
relayAt: i
  ^ relays at: i
%
method: BenchSched
consumer
  ^ consumer
%
method: BenchSched
newPacket
  | p |
  p := pool.
  p isNil ifTrue: [^ BenchPacket new initialize; yourself].
  pool := p link.
  p link: nil.
  ^ p
%
method: BenchSched
freePacket: p
  p link: pool.
  pool := p
%
method: BenchSched
schedule
  | steps |
  steps := 0.
  [ | task |
    task := tasks detect: [:t | t isReady] ifNone: [nil].
    task isNil ifTrue: [^ steps].
    task step.
    steps := steps + 1] repeat
%
method: BenchSched
run
  | steps |
  self setUp: 40000.
  steps := self schedule.
  ^ steps + consumer sum + consumer count
%
