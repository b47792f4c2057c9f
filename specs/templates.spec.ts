/** Every ready-made shape, with its built-in checks (pending records, blocked waits, mark order). */
import { fanIn, handoff, multiThreadConsumer, oneToMany, pingPong, pipeline, scenario } from '../src';

scenario('template pingPong: 3 rounds on device 0', pingPong({ rounds: 3 }));
scenario('template pingPong: device 0 <-> device 1', pingPong({ rounds: 2, pongDevice: 1 }));
scenario('template oneToMany: producer -> 4 consumers on devices 1..4', oneToMany({ consumers: 4 }));
scenario('template pipeline: devices 0 -> 1 -> 2 -> 3', pipeline({ stages: 4 }));
scenario('template fanIn: 3 producers -> 1 consumer', fanIn({ producers: 3 }));
scenario('template multiThreadConsumer: 4 threads on one device', multiThreadConsumer({ threads: 4 }));
scenario('template oneToMany: 15 consumers (needs 16 devices)', oneToMany({ consumers: 15 }));

// Device lists, and one scenario per row of a table (like test.each).
scenario('template pipeline on devices 1 -> 3 -> 6', pipeline({ devices: [1, 3, 6] }));
scenario.each([{ consumers: [2, 5] }, { consumers: [7] }])('template oneToMany: producer on device 4 -> consumers on $consumers', (row) =>
  oneToMany({ producer: 4, consumers: row.consumers }),
);

// Soak rounds: the same templates, every body run again and checked in one set of processes.
scenario('oneToMany in 20 rounds', oneToMany({ consumers: 2, rounds: 20 }));
scenario('handoff in 200 rounds: the event and buffer made once, every round byte-checked', handoff({ consumers: 3, rounds: 200 }));
