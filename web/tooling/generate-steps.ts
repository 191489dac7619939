// `npm run generate:steps`: writes web/src/elements/generated/ from the step registry (web/tooling/step-files.ts).
import { writeStepFiles } from './step-files';

const written = await writeStepFiles();
console.log(written.length ? `elements/generated: rewrote ${written.join(', ')}` : 'elements/generated: up to date');
