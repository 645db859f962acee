// A button with data-copy="<id>" copies the text of the element with that id (the new API token).
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const text = document.getElementById(button.dataset.copy).textContent.trim();
  navigator.clipboard.writeText(text).then(
    () => { button.textContent = "Copied"; },
    () => { button.textContent = "Copy failed: select the token and copy it"; },
  );
});
