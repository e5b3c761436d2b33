// Svelte compiles <script lang="ts"> natively (type annotations only), so no
// preprocessor is needed. Runes mode everywhere: one reactivity model.
export default {
  compilerOptions: { runes: true },
};
