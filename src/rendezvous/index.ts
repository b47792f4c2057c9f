export { Rendezvous, setRendezvousPoints, type AwaitOptions, type RendezvousPoints, type WaitingFor, type WaitReporter } from './rendezvous';
export { RendezvousTimeoutError } from './errors';
export { RendezvousNameError, LAYOUT, checkName, isValidName } from './layout';
export { writeFileAtomicSync } from './atomic-file';
