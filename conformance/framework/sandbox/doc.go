// Package sandbox is the conformance suite's client of the /_sandbox control
// plane: accounts and certificates, the simulation clock and jobs, PIX in and
// out, MED, DICT and bank settings, webhook targets and deliveries. The specs
// reach it as Framework.Sandbox.
package sandbox
