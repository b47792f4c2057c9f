export { Rendezvous, setRendezvousPoints } from './rendezvous';
export type { AwaitOptions, RendezvousPoints, WaitingFor, WaitReporter } from './rendezvous';
export { RendezvousTimeoutError } from './errors';
export { RendezvousNameError, LAYOUT, checkName, isValidName } from './layout';
export { writeFileAtomicSync } from './atomic-file';
