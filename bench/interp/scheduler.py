"""Object-heavy scheduling: producer, relay and consumer tasks passing pooled packets
through linked-list queues, picked by priority on every step."""


class Packet:
    __slots__ = ("link", "datum", "data")

    def __init__(self):
        self.link = None
        self.datum = 0
        self.data = [0, 0, 0, 0]


class Task:
    def __init__(self, scheduler, priority):
        self.scheduler = scheduler
        self.priority = priority
        self.head = None

    def enqueue(self, packet):
        packet.link = None
        if self.head is None:
            self.head = packet
            return
        p = self.head
        while p.link is not None:
            p = p.link
        p.link = packet

    def dequeue(self):
        p = self.head
        self.head = p.link
        p.link = None
        return p

    def is_ready(self):
        return self.head is not None


class Producer(Task):
    def __init__(self, scheduler, priority, count):
        super().__init__(scheduler, priority)
        self.remaining = count
        self.counter = 0

    def is_ready(self):
        return self.remaining > 0

    def step(self):
        for _ in range(4):
            if self.remaining == 0:
                return
            self.remaining -= 1
            self.counter += 1
            p = self.scheduler.new_packet()
            p.datum = self.counter
            for i in range(4):
                p.data[i] = (i + 1) * self.counter % 256
            self.scheduler.relays[self.counter % 2].enqueue(p)


class Relay(Task):
    def step(self):
        p = self.dequeue()
        for i in range(4):
            p.data[i] = (p.data[i] + p.datum) % 256
        self.scheduler.consumer.enqueue(p)


class Consumer(Task):
    def __init__(self, scheduler, priority):
        super().__init__(scheduler, priority)
        self.sum = 0
        self.count = 0

    def step(self):
        p = self.dequeue()
        self.sum += p.datum + p.data[0] + p.data[1] + p.data[2] + p.data[3]
        self.count += 1
        self.scheduler.free_packet(p)


class Scheduler:
    def __init__(self, packets):
        self.pool = None
        self.relays = [Relay(self, 2), Relay(self, 2)]
        self.consumer = Consumer(self, 1)
        producer = Producer(self, 3, packets)
        self.tasks = [self.relays[0], self.relays[1], self.consumer, producer]

    def new_packet(self):
        p = self.pool
        if p is None:
            return Packet()
        self.pool = p.link
        p.link = None
        return p

    def free_packet(self, p):
        p.link = self.pool
        self.pool = p

    def run(self):
        steps = 0
        while True:
            task = None
            for t in self.tasks:
                if t.is_ready():
                    task = t
                    break
            if task is None:
                return steps
            task.step()
            steps += 1


def run():
    s = Scheduler(40000)
    steps = s.run()
    return steps + s.consumer.sum + s.consumer.count
